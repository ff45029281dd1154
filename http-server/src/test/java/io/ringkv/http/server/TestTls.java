package io.ringkv.http.server;

import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TlsCredentials;
import io.ringkv.net.tls.TrustedCertificates;
import java.net.URISyntaxException;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;

/**
 * The test certificate and key in src/test/resources/tls (see the README there): the server's
 * TLS settings, and a client context that trusts that certificate alone. Test helper.
 */
final class TestTls {
    private TestTls() {
    }

    static Path certificateFile() {
        return resource("tls/cert.pem");
    }

    static Path keyFile() {
        return resource("tls/key.pem");
    }

    static TlsCredentials credentials() {
        try {
            return TlsCredentials.fromPem(certificateFile(), keyFile());
        } catch (PemFileException e) {
            throw new AssertionError(e);
        }
    }

    static ServerTls serverTls() {
        return ServerTls.of(credentials().serverContext());
    }

    static SSLContext clientContext() {
        return TrustedCertificates.clientContext(credentials().chain());
    }

    private static Path resource(String name) {
        try {
            return Path.of(TestTls.class.getClassLoader().getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
