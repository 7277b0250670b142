// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

/** The look-ups of a worker that belongs to no domain. Stateless. */
final class NoDomain implements DomainLookups {
    static final NoDomain INSTANCE = new NoDomain();

    private NoDomain() {}

    private static UromException notFound(long domainId) {
        return new UromException(
                UromStatus.NOT_FOUND, "domain id " + domainId + " is unknown: the worker is in no domain");
    }

    @Override
    public byte[] address(long domainId) throws UromException {
        throw notFound(domainId);
    }

    @Override
    public int segment(long domainId, long va) throws UromException {
        throw notFound(domainId);
    }

    @Override
    public byte[] memoryHandle(long domainId, int segment) throws UromException {
        throw notFound(domainId);
    }

    @Override
    public byte[] memoryKey(long domainId, int segment) throws UromException {
        throw notFound(domainId);
    }
}
