// SPDX-License-Identifier: Apache-2.0
/**
 * The process boundary between the daemon and a worker: everything that crosses it, typed, with
 * the one codec that both sides use.
 *
 * <ul>
 *   <li>{@link dev.urom.service.process.WorkerLaunch}: the worker's command line, written by the
 *       daemon after the launcher's and the JVM's options and read by the worker's main class;
 *   <li>{@link dev.urom.service.process.WorkerLine}: every line on the worker's stdin and stdout
 *       pipes (ACCESS, READY, FAILED, STATS requests and answers, ENDING);
 *   <li>{@link dev.urom.service.process.WorkerLines}: the line codec.
 * </ul>
 *
 * <p>Named {@code process} because it is the protocol of the worker process as the operating
 * system sees it (its argv and its pipes), beside the socket protocol of {@code dev.urom.wire}
 * that hosts speak to the same process; spawning it stays in {@code dev.urom.service.daemon},
 * serving in {@code dev.urom.service.worker}. The launcher {@code urom-launch} (C) writes a FAILED
 * line of the same form when it cannot start the worker.
 */
package dev.urom.service.process;
