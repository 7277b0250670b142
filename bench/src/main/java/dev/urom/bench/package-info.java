// SPDX-License-Identifier: Apache-2.0
/**
 * Benchmark programs, not part of the product; nothing here is API and no module depends on it.
 *
 * <ul>
 *   <li>Benchmark commands, each a {@code main} that {@code bin/bench NAME} runs ({@link
 *       dev.urom.bench.EndToEndBench}, {@link dev.urom.bench.LoadBench}, ...): it starts what it
 *       measures, checks every answer it times, and prints one table of figures with their
 *       baselines and targets ({@link dev.urom.bench.Report}), as JSON and charts too on request.
 *   <li>Their command lines: an {@code *Options} record per command, parsed by {@link
 *       dev.urom.bench.BenchCommand} (picocli).
 *   <li>The children they start ({@code *Main}, {@link dev.urom.bench.DispatchDriver}, {@link
 *       dev.urom.bench.GrpcEchoServer}) and the baselines' C programs, which the build compiles next
 *       to the jar ({@link dev.urom.bench.FloorBaseline}, {@link dev.urom.bench.CHostBaseline}).
 *   <li>One JMH microbenchmark, {@link dev.urom.bench.HandshakeBench}.
 * </ul>
 *
 * <p>Whether the product is right is for the tests of its modules: a benchmark fails a run whose
 * answers are wrong, but asserts nothing else about the product. docs/benchmarks.md documents
 * every command, its options and the figures measured so far.
 */
package dev.urom.bench;
