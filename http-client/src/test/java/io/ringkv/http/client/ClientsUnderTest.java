package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The clients a test made, shut down at its end; each must then terminate within 30 s (a client
 * that does not is a leak the test reports). Test scope only; not thread-safe.
 */
public final class ClientsUnderTest implements AutoCloseable {
    private final List<HttpClient> clients = new ArrayList<>();

    /** Registers {@code client} for shutdown and returns it. */
    public <C extends HttpClient> C add(C client) {
        clients.add(client);
        return client;
    }

    @Override
    public void close() throws InterruptedException {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat("client terminates", client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        clients.clear();
    }
}
