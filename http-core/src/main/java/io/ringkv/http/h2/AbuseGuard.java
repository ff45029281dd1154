package io.ringkv.http.h2;

/**
 * Applies {@link AbuseLimits} to what the peer sends; each check throws the connection error
 * that ends the connection with GOAWAY(ENHANCE_YOUR_CALM) and a reason naming the limit.
 *
 * <p>Threading: not thread-safe; confined to the connection's reading side.
 */
final class AbuseGuard {
    private final AbuseLimits limits;
    private final RateLimit resets;
    private final RateLimit settings;
    private final RateLimit pings;
    private final RateLimit emptyData;

    AbuseGuard(AbuseLimits limits) {
        this.limits = limits;
        long interval = limits.interval().toNanos();
        this.resets = new RateLimit(limits.resetsPerInterval(), interval);
        this.settings = new RateLimit(limits.settingsPerInterval(), interval);
        this.pings = new RateLimit(limits.pingsPerInterval(), interval);
        this.emptyData = new RateLimit(limits.emptyDataPerInterval(), interval);
    }

    void onPeerReset(long nowNanos) throws ConnectionError {
        check(resets.tryRecord(nowNanos), "rapid_reset");
    }

    /** A RST_STREAM the peer made us send: the same budget as its own (see Http2Connection#countProvokedReset). */
    void onProvokedReset(long nowNanos) throws ConnectionError {
        check(resets.tryRecord(nowNanos), "rapid_reset");
    }

    void onSettings(long nowNanos) throws ConnectionError {
        check(settings.tryRecord(nowNanos), "settings_flood");
    }

    void onPing(long nowNanos) throws ConnectionError {
        check(pings.tryRecord(nowNanos), "ping_flood");
    }

    void onEmptyData(long nowNanos) throws ConnectionError {
        check(emptyData.tryRecord(nowNanos), "empty_data_flood");
    }

    void onContinuation(int continuationsSoFar, int blockBytesSoFar) throws ConnectionError {
        check(continuationsSoFar <= limits.continuationsPerBlock(), "too_many_continuations");
        check(blockBytesSoFar <= limits.headerBlockBytesMax(), "header_block_too_large");
    }

    private static void check(boolean withinLimit, String reason) throws ConnectionError {
        if (!withinLimit) {
            throw new ConnectionError(ErrorCode.ENHANCE_YOUR_CALM, reason);
        }
    }
}
