package io.ringkv.store;

import java.nio.ByteBuffer;

/**
 * What one replica has promised and accepted for one key's compare-and-set (single-decree Paxos
 * per key, see the cluster module's {@code PaxosAcceptor}).
 *
 * @param promised       the highest ballot this replica promised not to go below; 0 before any
 * @param acceptedBallot the ballot of the proposal it accepted last; 0 when none
 * @param accepted       the record that proposal would write, or null when none
 */
public record PaxosState(long promised, long acceptedBallot, Record accepted) {

    /** Nothing promised, nothing accepted. */
    public static final PaxosState EMPTY = new PaxosState(0, 0, null);

    private static final byte FORMAT_V1 = 1;
    private static final int HEADER_BYTES = 1 + Long.BYTES + Long.BYTES + 1;

    public PaxosState {
        if (promised < 0 || acceptedBallot < 0) {
            throw new IllegalArgumentException("ballots are not negative: " + promised + ", " + acceptedBallot);
        }
        if ((accepted == null) != (acceptedBallot == 0)) {
            throw new IllegalArgumentException("an accepted ballot comes with its record, and only then");
        }
        if (acceptedBallot > promised) {
            throw new IllegalArgumentException("accepted ballot " + acceptedBallot + " above the promise " + promised);
        }
    }

    /** Format byte, promised, accepted ballot, a has-record byte, then the record ({@link RecordCodec}). */
    static byte[] encode(PaxosState state) {
        byte[] record = state.accepted == null ? new byte[0] : RecordCodec.encode(state.accepted);
        return ByteBuffer.allocate(HEADER_BYTES + record.length).put(FORMAT_V1).putLong(state.promised)
                .putLong(state.acceptedBallot).put((byte) (state.accepted == null ? 0 : 1)).put(record).array();
    }

    /** The promise of an encoded state without decoding its record; -1 when the bytes are not a state. */
    static long promisedOf(byte[] bytes) {
        if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT_V1) {
            return -1;
        }
        long promised = ByteBuffer.wrap(bytes, 1, Long.BYTES).getLong();
        return promised < 0 ? -1 : promised;
    }

    static PaxosState decode(byte[] bytes) throws CorruptRecordException {
        if (bytes.length < HEADER_BYTES || bytes[0] != FORMAT_V1) {
            throw new CorruptRecordException("paxos state of " + bytes.length + " bytes does not decode");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        in.get();
        long promised = in.getLong();
        long acceptedBallot = in.getLong();
        byte hasRecord = in.get();
        if (hasRecord != 0 && hasRecord != 1 || (hasRecord == 0) != (in.remaining() == 0)) {
            throw new CorruptRecordException("paxos state with a malformed accepted record");
        }
        Record accepted = null;
        if (hasRecord == 1) {
            byte[] record = new byte[in.remaining()];
            in.get(record);
            accepted = RecordCodec.decode(record);
        }
        try {
            return new PaxosState(promised, acceptedBallot, accepted);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordException("paxos state does not hold together: " + e.getMessage());
        }
    }
}
