package io.ringkv.node;

final class RangeQuery {
    static final int LIMIT_MAX = 10_000;
}
