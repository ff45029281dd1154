package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.h2.Hex;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HpackDecoderTest {

    @Test
    void headerListSizeIsEnforcedDuringDecodingAndTableStaysInStep() throws HpackException {
        HpackEncoder encoder = new HpackEncoder(new HpackEncoder.Config(4096, HpackEncoder.HuffmanMode.NEVER,
                Set.of(), Set.of("x-big")));
        HpackDecoder decoder = new HpackDecoder(4096, 200);
        List<HeaderField> big = new ArrayList<>();
        big.add(new HeaderField("x-indexed", "kept-in-table"));
        for (int i = 0; i < 50; i++) {
            big.add(new HeaderField("x-big", "value-" + i + "-".repeat(100)));
        }
        big.add(new HeaderField("x-indexed-late", "also-kept"));
        HeaderListTooLargeException error = assertThrows(HeaderListTooLargeException.class,
                () -> decoder.decode(encoder.encode(big)));
        assertThat(error.maxBytes(), equalTo(200L));
        // Both incrementally indexed fields reached the table although the list was abandoned.
        List<HeaderField> next = List.of(new HeaderField("x-indexed", "kept-in-table"),
                new HeaderField("x-indexed-late", "also-kept"));
        ByteBuffer block = encoder.encode(next);
        assertThat(Hex.of(block), equalTo("bfbe"));
        assertThat(decoder.decode(block), equalTo(next));
    }

    @Test
    void neverIndexedLiteralDecodesAsSensitive() throws HpackException {
        List<HeaderField> fields = new HpackDecoder(4096, 1000).decode(Hex.buffer("1008 7061 7373 776f 7264 0673 6563 7265 74"));
        assertThat(fields, contains(new HeaderField("password", "secret", true)));
    }

    @Test
    void loweredTableLimitRequiresSizeUpdateAtStartOfNextBlock() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 1000);
        decoder.decode(Hex.buffer("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"));
        decoder.maxTableCapacity(0);
        HpackException error = assertThrows(HpackException.class, () -> decoder.decode(Hex.buffer("82")));
        assertThat(error.reason(), equalTo("size_update_required"));
    }

    @Test
    void sizeUpdateToZeroEvictsEverything() throws HpackException {
        HpackDecoder decoder = new HpackDecoder(4096, 1000);
        decoder.decode(Hex.buffer("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"));
        decoder.maxTableCapacity(0);
        assertThat(decoder.decode(Hex.buffer("20 82")), contains(new HeaderField(":method", "GET")));
        assertThat(decoder.tableLength(), equalTo(0));
        HpackException error = assertThrows(HpackException.class, () -> decoder.decode(Hex.buffer("be")));
        assertThat(error.reason(), equalTo("index_out_of_range"));
    }
}
