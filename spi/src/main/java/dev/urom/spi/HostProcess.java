// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

/**
 * The process at the other end of a host connection, as the kernel named it when the host
 * connected: {@code struct urom_host_process}. Whoever receives one owns its {@code pidfd} and must
 * close it ({@code close(2)}, through JNA or the FFM API); the record itself holds no resource
 * and closes nothing.
 *
 * <p>Immutable. The pid is valid for {@code process_vm_readv}/{@code process_vm_writev} while the
 * pidfd says the process is still the one that connected (a pidfd that polls readable: it has
 * exited); whether those calls succeed is the kernel's ptrace rule (the worker must run as the
 * host's uid).
 *
 * @param pid the process id, in the worker's pid namespace; positive
 * @param pidfd a pidfd of that process, close-on-exec, owned by the receiver; not negative
 * @see WorkerContext#hostProcess(long)
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public record HostProcess(int pid, int pidfd) {
    /** @throws IllegalArgumentException when the pid is not positive or the pidfd is negative */
    public HostProcess {
        if (pid <= 0) {
            throw new IllegalArgumentException("pid " + pid + " is not positive");
        }
        if (pidfd < 0) {
            throw new IllegalArgumentException("pidfd " + pidfd + " is negative");
        }
    }
}
