package io.ringkv.http.hpack;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes complete header blocks, RFC 7541 §3 and §6. The caller joins a HEADERS frame's
 * fragment with its CONTINUATIONs first; decoding is then a single pass with no suspended
 * state between calls other than the dynamic table.
 *
 * <p>The header list size bound (SETTINGS_MAX_HEADER_LIST_SIZE, RFC 9113 §6.5.2) is enforced
 * while decoding: once the fields seen so far exceed it, no more strings are materialised for
 * the list (literals that are not indexed are skipped undecoded), but representations that
 * change the dynamic table are still applied so that the context stays in step with the peer.
 * The call then ends in {@link HeaderListTooLargeException}, which costs one stream, not the
 * connection. Every other failure is an {@link HpackException}: the connection is lost.
 *
 * <p>Threading: not thread-safe; confined to the connection's reading thread.
 */
public final class HpackDecoder {
    /** HTTP/2's initial SETTINGS_HEADER_TABLE_SIZE, RFC 9113 §6.5.2. */
    public static final int DEFAULT_TABLE_CAPACITY = 4096;

    private final DynamicTable table;
    private int maxTableCapacity;
    private long maxHeaderListBytes;
    /** Set when our limit drops below the table's capacity: the next block must start with an update. */
    private boolean sizeUpdateRequired;
    private byte[] scratch = new byte[256];

    /**
     * @param maxTableCapacity   our SETTINGS_HEADER_TABLE_SIZE (also the initial capacity)
     * @param maxHeaderListBytes our SETTINGS_MAX_HEADER_LIST_SIZE
     */
    public HpackDecoder(int maxTableCapacity, long maxHeaderListBytes) {
        this.table = new DynamicTable(maxTableCapacity);
        this.maxTableCapacity = maxTableCapacity;
        this.maxHeaderListBytes = maxHeaderListBytes;
    }

    /**
     * Applies a new SETTINGS_HEADER_TABLE_SIZE of ours once the peer acknowledged it. If it is
     * below the current capacity, the peer's next block must begin with a size update (§4.2).
     */
    public void maxTableCapacity(int bytes) {
        this.maxTableCapacity = bytes;
        if (table.capacity() > bytes) {
            sizeUpdateRequired = true;
        }
    }

    public void maxHeaderListBytes(long bytes) {
        this.maxHeaderListBytes = bytes;
    }

    /** Current dynamic table size in octets (RFC 7541 §4.1); for tests and diagnostics. */
    public int tableSize() {
        return table.size();
    }

    public int tableLength() {
        return table.length();
    }

    /** Decodes one complete header block, consuming {@code block}. */
    public List<HeaderField> decode(ByteBuffer block) throws HpackException {
        Block state = new Block();
        boolean atStart = true;
        while (block.hasRemaining()) {
            int first = block.get(block.position()) & 0xff;
            if ((first & 0xe0) == 0x20) {
                sizeUpdate(block, atStart);
                continue;
            }
            if (sizeUpdateRequired) {
                throw new HpackException("size_update_required");
            }
            atStart = false;
            representation(block, first, state);
        }
        if (sizeUpdateRequired) {
            throw new HpackException("size_update_required");
        }
        if (state.tooLarge) {
            throw new HeaderListTooLargeException(maxHeaderListBytes);
        }
        return state.fields;
    }

    /** Per-block bookkeeping. */
    private static final class Block {
        /** Room for a typical response's fields; the list grows for more. */
        final List<HeaderField> fields = new ArrayList<>(8);
        long listBytes;
        boolean tooLarge;
    }

    private void representation(ByteBuffer block, int first, Block state) throws HpackException {
        if ((first & 0x80) != 0) {
            // §6.1 indexed header field
            emit(state, lookup(HpackInteger.decode(block, 7)));
        } else if ((first & 0x40) != 0) {
            // §6.2.1 literal with incremental indexing
            HeaderField field = new HeaderField(name(block, 6), string(block));
            table.add(field);
            emit(state, field);
        } else {
            // §6.2.2 without indexing (0000), §6.2.3 never indexed (0001)
            literalNotIndexed(block, (first & 0x10) != 0, state);
        }
    }

    /** RFC 7541 §6.3: only at the start of a block, and never above our advertised maximum. */
    private void sizeUpdate(ByteBuffer block, boolean atStart) throws HpackException {
        if (!atStart) {
            throw new HpackException("size_update_not_at_start");
        }
        int capacity = HpackInteger.decode(block, 5);
        if (capacity > maxTableCapacity) {
            throw new HpackException("size_update_too_large");
        }
        table.capacity(capacity);
        sizeUpdateRequired = false;
    }

    private void literalNotIndexed(ByteBuffer block, boolean never, Block state) throws HpackException {
        String name = name(block, 4);
        if (!state.tooLarge && !fits(state, name, block)) {
            state.tooLarge = true;
        }
        if (state.tooLarge) {
            skipString(block);
            return;
        }
        emit(state, new HeaderField(name, string(block), never));
    }

    /** A cheap lower bound on the value's decoded size, checked before decoding it. */
    private boolean fits(Block state, String name, ByteBuffer block) throws HpackException {
        // Read ahead on the block itself and step back (no duplicate() per field).
        int start = block.position();
        boolean huffman = block.hasRemaining() && (block.get(start) & 0x80) != 0;
        int raw;
        try {
            raw = block.hasRemaining() ? HpackInteger.decode(block, 7) : 0;
        } finally {
            block.position(start);
        }
        // Huffman codes are at most 30 bits per octet, so n coded octets yield at least n*8/30.
        long valueBytes = huffman ? raw * 8L / 30 : raw;
        return state.listBytes + name.length() + valueBytes + HeaderField.ENTRY_OVERHEAD <= maxHeaderListBytes;
    }

    private void emit(Block state, HeaderField field) {
        state.listBytes += field.size();
        if (state.listBytes > maxHeaderListBytes) {
            state.tooLarge = true;
        }
        if (!state.tooLarge) {
            state.fields.add(field);
        }
    }

    private String name(ByteBuffer block, int prefixBits) throws HpackException {
        int index = HpackInteger.decode(block, prefixBits);
        return index == 0 ? string(block) : lookup(index).name();
    }

    private HeaderField lookup(int index) throws HpackException {
        if (index == 0) {
            throw new HpackException("index_zero");
        }
        if (index <= StaticTable.LENGTH) {
            return StaticTable.get(index);
        }
        // RFC 7541 §2.3.3: an index beyond both tables is a decoding error.
        if (index - StaticTable.LENGTH > table.length()) {
            throw new HpackException("index_out_of_range");
        }
        return table.get(index - StaticTable.LENGTH);
    }

    /** RFC 7541 §5.2 string literal. */
    private String string(ByteBuffer block) throws HpackException {
        if (!block.hasRemaining()) {
            throw new HpackException("string_truncated");
        }
        boolean huffman = (block.get(block.position()) & 0x80) != 0;
        int length = HpackInteger.decode(block, 7);
        if (length > block.remaining()) {
            throw new HpackException("string_truncated");
        }
        if (!huffman) {
            return raw(block, length);
        }
        int maxDecoded = length * 8 / 5;
        if (scratch.length < maxDecoded) {
            scratch = new byte[Math.max(maxDecoded, scratch.length * 2)];
        }
        int n = Huffman.decode(block, length, scratch);
        return new String(scratch, 0, n, StandardCharsets.ISO_8859_1);
    }

    private String raw(ByteBuffer block, int length) {
        String text;
        if (block.hasArray()) {
            text = new String(block.array(), block.arrayOffset() + block.position(), length,
                    StandardCharsets.ISO_8859_1);
            block.position(block.position() + length);
        } else {
            byte[] bytes = new byte[length];
            block.get(bytes);
            text = new String(bytes, StandardCharsets.ISO_8859_1);
        }
        return text;
    }

    private static void skipString(ByteBuffer block) throws HpackException {
        if (!block.hasRemaining()) {
            throw new HpackException("string_truncated");
        }
        int length = HpackInteger.decode(block, 7);
        if (length > block.remaining()) {
            throw new HpackException("string_truncated");
        }
        block.position(block.position() + length);
    }
}
