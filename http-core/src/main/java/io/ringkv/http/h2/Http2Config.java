package io.ringkv.http.h2;

import io.ringkv.http.hpack.HpackEncoder;

/**
 * Everything a connection is configured with.
 *
 * @param local               the SETTINGS we advertise
 * @param connectionWindowBytes our connection-level receive window; above 65,535 it is raised
 *                            with a WINDOW_UPDATE right after the preface (RFC 9113 §6.9.2)
 * @param creditRatio         fraction of a receive window taken before a WINDOW_UPDATE is sent
 * @param limits              abuse limits
 * @param hpack               header compression choices
 */
public record Http2Config(Http2Settings local, int connectionWindowBytes, double creditRatio, AbuseLimits limits,
                          HpackEncoder.Config hpack) {
    public static final int DEFAULT_CONNECTION_WINDOW = 16 << 20;
    public static final double DEFAULT_CREDIT_RATIO = 0.5;

    public static Http2Config defaults() {
        return new Http2Config(Http2Settings.localDefaults(), DEFAULT_CONNECTION_WINDOW, DEFAULT_CREDIT_RATIO,
                AbuseLimits.defaults(), HpackEncoder.Config.defaults());
    }

    public Http2Config withLocal(Http2Settings settings) {
        return new Http2Config(settings, connectionWindowBytes, creditRatio, limits, hpack);
    }

    public Http2Config withLimits(AbuseLimits newLimits) {
        return new Http2Config(local, connectionWindowBytes, creditRatio, newLimits, hpack);
    }

    public Http2Config withConnectionWindow(int bytes, double ratio) {
        return new Http2Config(local, bytes, ratio, limits, hpack);
    }
}
