package io.ringkv.net.tls;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/** Reads the X.509 certificates of a PEM file ({@code BEGIN CERTIFICATE} blocks, in file order). Stateless. */
public final class PemCertificates {
    private PemCertificates() {
    }

    /**
     * @return the certificates in the order of the file, at least one
     * @throws PemFileException when the file cannot be read, holds no certificate, or one does not parse
     */
    public static List<X509Certificate> read(Path file) throws PemFileException {
        List<X509Certificate> certificates = new ArrayList<>();
        CertificateFactory factory;
        try {
            factory = CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("this JDK has no X.509 certificate factory", e);
        }
        for (PemBlocks.Block block : PemBlocks.read(file)) {
            if (!block.label().equals("CERTIFICATE")) {
                continue;
            }
            try {
                certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
            } catch (CertificateException e) {
                throw new PemFileException(file, "certificate " + (certificates.size() + 1) + " does not parse ("
                        + e.getMessage() + ")", e);
            }
        }
        if (certificates.isEmpty()) {
            throw new PemFileException(file, "holds no '-----BEGIN CERTIFICATE-----' block");
        }
        return List.copyOf(certificates);
    }
}
