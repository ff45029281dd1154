package io.ringkv.ops.chaos;

import io.ringkv.ops.JsonText;

/**
 * One client operation of a chaos run, from invocation to outcome: a line of the history.
 *
 * @param client      the workload thread that issued it
 * @param type        PUT, DELETE or GET
 * @param key         the key (a small set, so that operations conflict)
 * @param value       for a PUT the value written (unique in the run); for a successful GET the
 *                    value read, or null for {@code 404}; null otherwise
 * @param node        index of the node the request went to
 * @param invokeNanos when the request was sent, nanoseconds since the run started
 * @param completeNanos when its outcome was known, nanoseconds since the run started
 * @param outcome     what the client can tell about the operation's effect
 * @param detail      status code or exception, for a person reading the history
 */
public record Operation(int client, OpType type, String key, String value, int node,
                        long invokeNanos, long completeNanos, Outcome outcome, String detail) {

    /** What kind of request. */
    public enum OpType { PUT, DELETE, GET }

    /**
     * What the client knows of an operation's effect. A write whose request may have reached a
     * coordinator but got no definite answer (a {@code 504}, a reset, a timeout) is
     * {@link #UNKNOWN}: it may take effect at any time, or never, and the checker treats it so.
     */
    public enum Outcome {
        /** Acknowledged: {@code 201}/{@code 202} for writes, {@code 200}/{@code 404} for reads. */
        OK,
        /** Definitely not applied: refused before any replica saw it (connection refused, {@code 4xx}, a {@code 503}). */
        FAIL,
        /** Might have been applied, now or later. */
        UNKNOWN
    }

    public boolean isWrite() {
        return type != OpType.GET;
    }

    /** For a JSON-lines history: one object, no nesting, strings escaped. */
    public String toJson() {
        return "{\"client\":" + client + ",\"type\":\"" + type + "\",\"key\":" + JsonText.string(key)
                + ",\"value\":" + (value == null ? "null" : JsonText.string(value)) + ",\"node\":" + node
                + ",\"invokeNanos\":" + invokeNanos + ",\"completeNanos\":" + completeNanos
                + ",\"outcome\":\"" + outcome + "\",\"detail\":" + JsonText.string(detail) + "}";
    }
}
