package io.ringkv.cluster;

/**
 * The phase of one replicated operation (a PUT, DELETE or GET coordinated by this node).
 *
 * <pre>
 *   STARTED --REPLICAS_CHOSEN--> PLANNED
 *   PLANNED --REPLY_SUCCEEDED/REPLY_FAILED--> PLANNED            (still undecided)
 *                                          \-> QUORUM_MET          (successes reached ack)
 *                                          \-> QUORUM_IMPOSSIBLE   (failures exceed from - ack)
 *   PLANNED --DEADLINE_PASSED--> TIMED_OUT
 *   QUORUM_MET --STALE_REPLICAS_SEEN--> REPAIRING --REPAIRS_SETTLED--> DONE
 *   QUORUM_MET | QUORUM_IMPOSSIBLE | TIMED_OUT --ALL_SETTLED--> DONE
 * </pre>
 * A write during a membership change counts two groups of replicas at once, its key's owners and
 * its future owners ({@link #next(CoordinatorPhase, Event, Tally, Tally)}): its quorum is met when
 * both are, and impossible when either is.
 * The client's answer is decided on leaving PLANNED, exactly once. Replies and the deadline
 * arriving after the decision change nothing (they race with it legitimately); ALL_SETTLED
 * comes once every replica has answered or failed, which each does within its own timeout.
 */
public enum CoordinatorPhase {
    STARTED, PLANNED, QUORUM_MET, QUORUM_IMPOSSIBLE, TIMED_OUT, REPAIRING, DONE;

    /** What can happen to an operation; the tally carries the counts the decision needs. */
    public enum Event {
        REPLICAS_CHOSEN, REPLY_SUCCEEDED, REPLY_FAILED, DEADLINE_PASSED,
        STALE_REPLICAS_SEEN, REPAIRS_SETTLED, ALL_SETTLED
    }

    /**
     * Replies counted while the operation was undecided.
     *
     * @param ack       successes needed
     * @param from      replicas asked
     * @param successes successful replies so far, including the one that caused the event
     * @param failures  failed replies so far, including the one that caused the event
     */
    public record Tally(int ack, int from, int successes, int failures) {
        public static Tally start(int ack, int from) {
            return new Tally(ack, from, 0, 0);
        }

        Tally plus(Event reply) {
            return reply == Event.REPLY_SUCCEEDED
                    ? new Tally(ack, from, successes + 1, failures)
                    : new Tally(ack, from, successes, failures + 1);
        }

        boolean met() {
            return successes >= ack;
        }

        /** More replicas failed than the group can afford to lose. */
        boolean impossible() {
            return failures > from - ack;
        }
    }

    /** Pure: no I/O, no logging. Throws IllegalStateException for events illegal in this phase. */
    public static CoordinatorPhase next(CoordinatorPhase current, Event event, Tally tally) {
        return next(current, event, tally, null);
    }

    /**
     * As {@link #next(CoordinatorPhase, Event, Tally)} for an operation that counts two groups of
     * replicas: {@code owners} and, when not null, {@code futureOwners} (a write during a membership
     * change, {@link MembershipView#writeSet}). A reply counts in each group its replica belongs to.
     */
    public static CoordinatorPhase next(CoordinatorPhase current, Event event, Tally owners, Tally futureOwners) {
        return switch (current) {
            case STARTED -> event == Event.REPLICAS_CHOSEN ? PLANNED : illegal(current, event);
            case PLANNED -> fromPlanned(event, owners, futureOwners);
            case QUORUM_MET -> switch (event) {
                case REPLY_SUCCEEDED, REPLY_FAILED, DEADLINE_PASSED -> current;
                case STALE_REPLICAS_SEEN -> REPAIRING;
                case ALL_SETTLED -> DONE;
                default -> illegal(current, event);
            };
            case QUORUM_IMPOSSIBLE, TIMED_OUT -> switch (event) {
                case REPLY_SUCCEEDED, REPLY_FAILED, DEADLINE_PASSED -> current;
                case ALL_SETTLED -> DONE;
                default -> illegal(current, event);
            };
            case REPAIRING -> switch (event) {
                case DEADLINE_PASSED -> current;
                case REPAIRS_SETTLED -> DONE;
                default -> illegal(current, event);
            };
            case DONE -> event == Event.DEADLINE_PASSED ? DONE : illegal(current, event);
        };
    }

    /** True once the client's answer is decided. */
    public boolean isDecided() {
        return this != STARTED && this != PLANNED;
    }

    private static CoordinatorPhase fromPlanned(Event event, Tally owners, Tally futureOwners) {
        return switch (event) {
            case REPLY_SUCCEEDED, REPLY_FAILED -> {
                if (owners.met() && (futureOwners == null || futureOwners.met())) {
                    yield QUORUM_MET;
                }
                // Success is impossible once more replicas failed than we can afford to lose.
                yield owners.impossible() || futureOwners != null && futureOwners.impossible() ? QUORUM_IMPOSSIBLE : PLANNED;
            }
            case DEADLINE_PASSED -> TIMED_OUT;
            default -> illegal(PLANNED, event);
        };
    }

    private static CoordinatorPhase illegal(CoordinatorPhase current, Event event) {
        throw new IllegalStateException("coordinator_illegal_transition: " + event + " in " + current);
    }
}
