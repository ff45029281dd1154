package io.ringkv.http.server;

import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.FrameParser;
import io.ringkv.http.h2.GoAwayFrame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackDecoder;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/** Reads, from a raw HTTP/2 client socket, how the server ended each stream: its answer's status or its reset. */
final class StreamOutcomes {
    private StreamOutcomes() {
    }

    /** The first HEADERS (as its :status) or RST_STREAM the server sends on each stream, until {@code streams} have one. */
    static Map<Integer, String> read(InputStream in, int streams) throws Exception {
        FrameParser parser = FrameParser.forClient();
        parser.maxFrameSize((1 << 24) - 1);
        HpackDecoder decoder = new HpackDecoder(HpackDecoder.DEFAULT_TABLE_CAPACITY, 1 << 20);
        Map<Integer, String> outcomes = new HashMap<>();
        ByteBuffer pending = ByteBuffer.allocate(0);
        byte[] buffer = new byte[64 * 1024];
        while (outcomes.size() < streams) {
            int n = in.read(buffer);
            if (n < 0) {
                throw new AssertionError("the server closed the connection; outcomes so far " + outcomes);
            }
            ByteBuffer joined = ByteBuffer.allocate(pending.remaining() + n);
            joined.put(pending).put(buffer, 0, n).flip();
            for (Frame frame = parser.next(joined); frame != null; frame = parser.next(joined)) {
                switch (frame) {
                    case HeadersFrame h -> {
                        String status = decoder.decode(h.fragment()).stream().filter(f -> f.name().equals(":status"))
                                .map(HeaderField::value).findFirst().orElse("?");
                        outcomes.putIfAbsent(h.streamId(), "HEADERS :status=" + status);
                    }
                    case RstStreamFrame r -> outcomes.putIfAbsent(r.streamId(), "RST_STREAM " + r.errorCode());
                    case GoAwayFrame g -> throw new AssertionError("GOAWAY " + g.errorCode() + "; outcomes so far " + outcomes);
                    default -> { }
                }
            }
            pending = ByteBuffer.allocate(joined.remaining()).put(joined).flip();
        }
        return outcomes;
    }
}
