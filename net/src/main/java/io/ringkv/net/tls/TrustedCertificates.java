package io.ringkv.net.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A client TLS context that trusts exactly the given certificates (CA or server certificates,
 * as trust anchors) instead of the JDK's default roots: for peers whose certificates an operator
 * made, such as a cluster's own CA or one certificate shared by its nodes. Host names are still
 * verified by whoever uses the context. Stateless.
 */
public final class TrustedCertificates {
    private TrustedCertificates() {
    }

    public static SSLContext clientContext(List<X509Certificate> anchors) {
        return context(null, anchors);
    }

    /**
     * A context that presents {@code credentials} and trusts exactly {@code anchors}: a server
     * that verifies its clients' certificates against them, or a client that verifies its
     * server against them and presents its own chain when the server asks for one.
     */
    public static SSLContext mutualContext(TlsCredentials credentials, List<X509Certificate> anchors) {
        return context(credentials.keyManagers(), anchors);
    }

    private static SSLContext context(KeyManager[] keyManagers, List<X509Certificate> anchors) {
        if (anchors.isEmpty()) {
            throw new IllegalArgumentException("at least one certificate to trust is needed");
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < anchors.size(); i++) {
                store.setCertificateEntry("trusted-" + i, anchors.get(i));
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a TLS context trusting " + anchors.size() + " certificates", e);
        }
    }
}
