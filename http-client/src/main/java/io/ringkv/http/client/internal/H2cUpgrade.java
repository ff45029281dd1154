package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.h2.UpgradeSettings;
import io.ringkv.net.Connection;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * One attempt to switch a cleartext origin to HTTP/2 by {@code Upgrade: h2c} (RFC 7540 §3.2),
 * riding on an HTTP/1.1 request without a body: it adds the upgrade fields to that request, and
 * on {@code 101 Switching Protocols} builds the {@link H2Connection} that takes the socket over,
 * with the request's response expected on stream 1. The origin's fate is reported once to the
 * {@link Outcome}: upgraded, declined (any other final status: the server stays on HTTP/1.1), or
 * failed (no answer; a later request may try again).
 *
 * <p>Threading: {@link #switchProtocols} runs on the connection's event loop; the outcome is
 * settled once, by whichever thread gets there first.
 */
final class H2cUpgrade {
    /** Where the origin's state is kept ({@link VersionedCodec}). */
    interface Outcome {
        void upgraded(Route route);

        void declined(Route route);

        void failed(Route route);
    }

    /** The HTTP/2 side of a switched connection: the connection and the exchange on stream 1. */
    record Switched(H2Connection connection, H2Exchange exchange) {
    }

    private final Route route;
    private final String settingsField;
    private final Function<Route, H2Connection> connections;
    private final H2Codec codec;
    private final Outcome outcome;
    private final PushPromises<?> pushes;
    private final AtomicBoolean settled = new AtomicBoolean();

    /**
     * @param settingsField the {@code HTTP2-Settings} value: our SETTINGS as the connection will send them
     * @param connections   makes the (not yet opened) HTTP/2 connection handler for a route
     * @param pushes        the call's handling of push promises on stream 1; {@code null} refuses them
     */
    H2cUpgrade(Route route, String settingsField, Function<Route, H2Connection> connections, H2Codec codec,
            Outcome outcome, PushPromises<?> pushes) {
        this.route = route;
        this.settingsField = settingsField;
        this.connections = connections;
        this.codec = codec;
        this.outcome = outcome;
        this.pushes = pushes;
    }

    /** RFC 7540 §3.2: the fields that offer the upgrade; Connection names the hop-by-hop ones. */
    void addFields(Headers fields) {
        fields.set("Connection", "Upgrade, " + UpgradeSettings.FIELD);
        fields.set("Upgrade", "h2c");
        fields.set(UpgradeSettings.FIELD, settingsField);
    }

    /** Whether a 101 answer switches to the protocol we offered. */
    static boolean switchesToH2c(io.ringkv.http.h1.ResponseHead head) {
        return head.headers().first("Upgrade")
                .map(value -> value.trim().toLowerCase(Locale.ROOT).equals("h2c")).orElse(false);
    }

    /**
     * Event loop, on 101: the connection becomes HTTP/2 in the client role. The preface and our
     * SETTINGS go out, the request continues as stream 1 (half-closed on our side), and the
     * connection joins the route's HTTP/2 connections for later requests.
     */
    Switched switchProtocols(Connection connection, ExchangeRequest request, Executor executor) {
        H2Connection upgraded = connections.apply(route);
        H2Exchange exchange = new H2Exchange(request, route, codec, executor, pushes);
        upgraded.openUpgraded(connection, exchange, "HEAD".equals(request.method()));
        codec.adopt(upgraded);
        if (settled.compareAndSet(false, true)) {
            outcome.upgraded(route);
        }
        return new Switched(upgraded, exchange);
    }

    /** The server answered without switching: the origin stays on HTTP/1.1. */
    void declined() {
        if (settled.compareAndSet(false, true)) {
            outcome.declined(route);
        }
    }

    /** The request failed before an answer: nothing was learnt about the origin. */
    void failed() {
        if (settled.compareAndSet(false, true)) {
            outcome.failed(route);
        }
    }
}
