package io.ringkv.http.client;

import java.nio.file.Path;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the compatibility suites that speak TLS share: a self-signed server certificate made once
 * per test class, an {@link SSLContext} that trusts it, the Jetty server of the current test and
 * the clients it built, all stopped after each test (every client must terminate).
 */
abstract class TlsClientSuiteFixture {
    @TempDir
    static Path keys;
    static Path keyStore;
    static SSLContext trusting;

    JettyTestServer server;
    final ClientsUnderTest clients = new ClientsUnderTest();

    @BeforeAll
    static void makeCertificate() throws Exception {
        keyStore = TestCertificates.serverKeyStore(keys);
        trusting = TestCertificates.trusting(keyStore);
    }

    @AfterEach
    void stopClientsAndServer() throws Exception {
        clients.close();
        if (server != null) {
            server.close();
        }
    }
}
