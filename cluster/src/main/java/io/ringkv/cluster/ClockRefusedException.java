package io.ringkv.cluster;

/**
 * A write refused because this node cannot trust its clock to stamp it ({@link ClockSkew#writeRefusal}):
 * it is behind or ahead of most of its peers by more than the bound, or has not compared its clock
 * with theirs since it started. Answered {@code 503}: nothing was stored, write through another node.
 */
public final class ClockRefusedException extends RuntimeException {
    public ClockRefusedException(String reason) {
        super(reason + "; this node refuses writes meanwhile: write through another node");
    }
}
