package io.ringkv.store;

/** Cursors that need no engine. */
final class RangeCursors {

    private RangeCursors() {
    }

    /** A cursor over no records (e.g. {@code start >= end}). Stateless; thread-safe. */
    static RangeCursor empty() {
        return EmptyCursor.INSTANCE;
    }

    private enum EmptyCursor implements RangeCursor {
        INSTANCE;

        @Override
        public boolean next() {
            return false;
        }

        @Override
        public byte[] key() {
            throw new IllegalStateException("empty range has no current entry");
        }

        @Override
        public Record record() {
            throw new IllegalStateException("empty range has no current entry");
        }

        @Override
        public void close() {
        }
    }
}
