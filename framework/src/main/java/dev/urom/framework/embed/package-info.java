// SPDX-License-Identifier: Apache-2.0
/**
 * Embedding the framework in another program: {@link dev.urom.framework.embed.EmbeddedUrom} (plugin
 * discovery with stable ids) and {@link dev.urom.framework.embed.InProcessWorker} (plugins hosted
 * in this process). See {@code docs/embedding.md}.
 */
package dev.urom.framework.embed;
