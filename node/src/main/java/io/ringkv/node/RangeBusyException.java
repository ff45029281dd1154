package io.ringkv.node;

/** A cluster range refused because as many as the node allows are open (answered 503). */
final class RangeBusyException extends RuntimeException {
    RangeBusyException(int max) {
        super(max + " cluster ranges are open on this node, its --range-streams-max; retry later");
    }
}
