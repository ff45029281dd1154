package io.ringkv.cluster;

/** A write refused because this node's clock is behind its peers' by more than the bound (answered 503). */
public final class ClockBehindException extends RuntimeException {
    public ClockBehindException(long behindMillis, long boundMillis) {
        super("this node's clock is " + behindMillis + " ms behind its peers' (more than the bound of " + boundMillis
                + " ms): it refuses writes, whose versions would lose to older ones; fix its clock (NTP) or write through another node");
    }
}
