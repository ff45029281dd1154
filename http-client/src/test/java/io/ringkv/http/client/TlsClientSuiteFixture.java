package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    final List<HttpClient> clients = new ArrayList<>();

    @BeforeAll
    static void makeCertificate() throws Exception {
        keyStore = TestCertificates.serverKeyStore(keys);
        trusting = TestCertificates.trusting(keyStore);
    }

    @AfterEach
    void stopClientsAndServer() throws Exception {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat("client terminates", client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        if (server != null) {
            server.close();
        }
    }
}
