package io.ringkv.http.server;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Starts servers on 127.0.0.1 with short timeouts and stops them after each test. Test helper. */
class ServerFixture {
    final List<HttpServer> servers = new ArrayList<>();
    final List<AutoCloseable> clients = new ArrayList<>();

    static ServerConfig.Builder config() {
        return ServerConfig.builder().host("127.0.0.1").port(0).eventLoops(2).handlerThreads(4)
                .idleTimeout(Duration.ofSeconds(30)).headerReadTimeout(Duration.ofSeconds(30))
                .shutdownGrace(Duration.ofSeconds(5));
    }

    HttpServer start(ServerConfig config, HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.start(config, handler);
        servers.add(server);
        return server;
    }

    HttpServer start(HttpHandler handler) throws IOException {
        return start(config().build(), handler);
    }

    RawClient client(HttpServer server) throws IOException {
        RawClient client = new RawClient(server.port());
        clients.add(client);
        return client;
    }

    void closeAll() throws Exception {
        for (AutoCloseable client : clients) {
            client.close();
        }
        for (HttpServer server : servers) {
            server.shutdown(Duration.ofSeconds(2));
        }
    }
}
