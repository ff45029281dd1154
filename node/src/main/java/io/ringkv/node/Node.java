package io.ringkv.node;

import io.ringkv.http.h1.H1Limits;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.RocksDbStorageEngine;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreConfig;
import io.ringkv.store.StoreException;
import java.io.IOException;
import java.net.BindException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: its store, its data layer (local or cluster), its HTTP server.
 *
 * <p>Lifecycle: {@link #start} opens everything or fails with a {@link NodeStartException} that
 * says what to fix, leaving nothing open; {@link #close} stops accepting, lets in-flight requests
 * finish within the grace period, then closes the store. Threading: start/close from one thread.
 */
public final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    private final NodeConfig config;
    private final StorageEngine engine;
    private final HttpServer server;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Node(NodeConfig config, StorageEngine engine, HttpServer server) {
        this.config = config;
        this.engine = engine;
        this.server = server;
    }

    public static Node start(NodeConfig config) throws NodeStartException {
        StorageEngine engine = openStore(config);
        try {
            EntityService entities = new LocalEntityService(engine, HybridLogicalClock.systemClock());
            AtomicBoolean ready = new AtomicBoolean();
            HttpServer server = startServer(config, new PublicApi(entities, null, ready::get));
            ready.set(true);
            return new Node(config, engine, server);
        } catch (NodeStartException | RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    private static StorageEngine openStore(NodeConfig config) throws NodeStartException {
        try {
            return RocksDbStorageEngine.open(config.dataDir(), StoreConfig.defaults().withDurability(config.durability()));
        } catch (StoreException e) {
            throw new NodeStartException("cannot open data directory " + config.dataDir().toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    private static HttpServer startServer(NodeConfig config, PublicApi api) throws NodeStartException {
        H1Limits defaults = H1Limits.defaults();
        H1Limits limits = new H1Limits(defaults.requestLineBytesMax(), defaults.headerBlockBytesMax(),
                defaults.headerCountMax(), config.maxBodyBytes());
        ServerConfig serverConfig = ServerConfig.builder()
                .host(config.host())
                .port(config.port())
                .limits(limits)
                .shutdownGrace(config.shutdownGrace())
                .build();
        try {
            return HttpServer.start(serverConfig, api);
        } catch (BindException e) {
            throw new NodeStartException("cannot listen on " + config.host() + ":" + config.port()
                    + " (" + e.getMessage() + "): is another process using the port?", e);
        } catch (IOException e) {
            throw new NodeStartException("cannot listen on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
    }

    /** The base URL clients use, with the bound port (useful when the config asked for port 0). */
    public String url() {
        return "http://" + config.host() + ":" + server.port();
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        log.info("stopping node {}", url());
        try {
            server.shutdown(config.shutdownGrace());
        } finally {
            engine.close();
        }
        log.info("node stopped");
    }
}
