package io.ringkv.net.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * What a TLS server proves its identity with: a certificate chain, leaf first, and the leaf's
 * private key. {@link #fromPem} reads them from PEM files and checks that they belong together,
 * so a mismatch is reported at start with the file names, not as a failed handshake per client.
 *
 * @param chain the leaf certificate, then each certificate's issuer (the root may be left out)
 * @param key   the private key of the leaf
 */
public record TlsCredentials(List<X509Certificate> chain, PrivateKey key) {
    private static final char[] NO_PASSWORD = new char[0];

    public TlsCredentials {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a certificate chain needs at least the leaf certificate");
        }
    }

    /**
     * @param certificateFile PEM certificates, leaf first
     * @param keyFile         the leaf's unencrypted private key (see {@link PemPrivateKey})
     * @throws PemFileException naming the file at fault: unreadable, not PEM, certificates out of
     *                          order, an expired leaf, or a key that is not the leaf's
     */
    public static TlsCredentials fromPem(Path certificateFile, Path keyFile) throws PemFileException {
        List<X509Certificate> chain = PemCertificates.read(certificateFile);
        PrivateKey key = PemPrivateKey.read(keyFile);
        checkOrder(certificateFile, chain);
        X509Certificate leaf = chain.get(0);
        try {
            leaf.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new PemFileException(certificateFile, "the certificate " + leaf.getSubjectX500Principal()
                    + " expired on " + leaf.getNotAfter().toInstant(), e);
        } catch (CertificateNotYetValidException e) {
            throw new PemFileException(certificateFile, "the certificate " + leaf.getSubjectX500Principal()
                    + " is not valid before " + leaf.getNotBefore().toInstant(), e);
        }
        checkKeyMatches(keyFile, key, certificateFile, leaf);
        return new TlsCredentials(chain, key);
    }

    /** Each certificate must be issued by the next one (RFC 8446 §4.4.2: the sender's certificate first). */
    private static void checkOrder(Path file, List<X509Certificate> chain) throws PemFileException {
        for (int i = 0; i + 1 < chain.size(); i++) {
            if (!chain.get(i).getIssuerX500Principal().equals(chain.get(i + 1).getSubjectX500Principal())) {
                throw new PemFileException(file, "certificate " + (i + 2) + " (" + chain.get(i + 1).getSubjectX500Principal()
                        + ") did not issue certificate " + (i + 1) + " (issuer " + chain.get(i).getIssuerX500Principal()
                        + "): the file must hold the server's certificate first, then each issuer in turn");
            }
        }
    }

    /**
     * Signs a random challenge with the key and verifies it with the certificate's public key:
     * the one check that works alike for RSA and EC without deriving the public key.
     */
    private static void checkKeyMatches(Path keyFile, PrivateKey key, Path certificateFile, X509Certificate leaf)
            throws PemFileException {
        String keyAlgorithm = key.getAlgorithm();
        String certificateAlgorithm = leaf.getPublicKey().getAlgorithm();
        if (!keyAlgorithm.equals(certificateAlgorithm)) {
            throw new PemFileException(keyFile, "is an " + keyAlgorithm + " key but the certificate in " + certificateFile
                    + " has an " + certificateAlgorithm + " key: they do not belong together");
        }
        boolean matches;
        try {
            String algorithm = keyAlgorithm.equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(challenge);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            throw new PemFileException(keyFile, "cannot check the key against the certificate in " + certificateFile
                    + " (" + e.getMessage() + ")", e);
        }
        if (!matches) {
            throw new PemFileException(keyFile, "is not the private key of the certificate in " + certificateFile
                    + " (" + leaf.getSubjectX500Principal() + ")");
        }
    }

    /** A TLS context that presents this chain (server side); it trusts the JDK's default roots as a client. */
    public SSLContext serverContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a TLS context from checked credentials", e);
        }
    }

    /** Key managers that present this chain and key. */
    KeyManager[] keyManagers() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("server", key, NO_PASSWORD, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(store, NO_PASSWORD);
            return keyManagers.getKeyManagers();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot build key managers from checked credentials", e);
        }
    }
}
