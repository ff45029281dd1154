package io.ringkv.cluster.member;

/**
 * The cluster metadata refused a membership step ({@code 409} from the metadata group): a change
 * is already in progress, the member is in another state, the step would leave too few members.
 * The message is the metadata's reason; nothing changed.
 */
public final class MembershipRefusedException extends RuntimeException {
    public MembershipRefusedException(String reason) {
        super(reason);
    }
}
