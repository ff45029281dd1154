package io.ringkv.node.access;

/**
 * One {@code cert:} line of a token file: what a client certificate named {@code identity} (its
 * subject CN or one of its subject alternative names, see {@link CertificateIdentity}) is granted.
 *
 * @param line the line it was read from, for messages
 */
public record StoredCertificate(Grant grant, String identity, int line) {
}
