package io.ringkv.bench;

import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackDecoder;
import io.ringkv.http.hpack.HpackEncoder;
import io.ringkv.http.hpack.HpackException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * HPACK encode and decode of one typical request header block (13 fields, ~700 octets raw),
 * ours next to Jetty's, in two situations:
 * <ul>
 *   <li>first: a fresh context per operation, as for the first request on a connection (every
 *       field is a literal, the Huffman coder and table insertion do the work);</li>
 *   <li>repeat: a long-lived context that has seen the same list before, as for the following
 *       requests (most fields become one-octet indexes; sensitive ones and :path stay literal).</li>
 * </ul>
 * Each encoder writes into an 8 KiB heap buffer that the benchmark reuses (ours through {@code
 * encode(List, ByteBuffer)}), so that bytes per operation are the encoder's own and not a
 * result buffer that only one side allocates. Run with {@code -prof gc} for bytes allocated per
 * operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HpackBenchmark {
    static final List<HeaderField> REQUEST = List.of(
            new HeaderField(":method", "GET"),
            new HeaderField(":scheme", "https"),
            new HeaderField(":authority", "node-3.ringkv.example.com:8443"),
            new HeaderField(":path", "/v0/entity?id=user-1234567-session-8f14e45fceea167a5a36dedd4bea2543&ack=2&from=3"),
            new HeaderField("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"),
            new HeaderField("accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"),
            new HeaderField("accept-encoding", "gzip, deflate, br"),
            new HeaderField("accept-language", "en-US,en;q=0.9,de;q=0.8"),
            new HeaderField("cache-control", "no-cache"),
            new HeaderField("content-type", "application/octet-stream"),
            new HeaderField("cookie", "session=4f2a9c1e7b3d5a8f6e0c2b4d9a7f1e3c; theme=dark; region=eu-west-1"),
            new HeaderField("authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyaW5na3YifQ.c2lnbmF0dXJlLWJ5dGVz"),
            new HeaderField("x-request-id", "0f8fad5b-d9cb-469f-a165-70867728950e"));

    private List<HttpField> jettyFields;
    private ByteBuffer firstBlock;
    private ByteBuffer repeatBlock;
    private HpackEncoder oursWarmEncoder;
    private org.eclipse.jetty.http2.hpack.HpackEncoder jettyWarmEncoder;
    private HpackDecoder oursWarmDecoder;
    private org.eclipse.jetty.http2.hpack.HpackDecoder jettyWarmDecoder;
    /** Each encoder's output, kept across operations as a connection would keep its own. */
    private final ByteBuffer oursOut = ByteBuffer.allocate(8192);
    private final ByteBuffer jettyOut = ByteBuffer.allocate(8192);

    @Setup
    public void setUp() throws Exception {
        jettyFields = REQUEST.stream().map(f -> new HttpField(f.name(), f.value())).toList();
        HpackEncoder encoder = new HpackEncoder();
        firstBlock = encoder.encode(REQUEST);
        repeatBlock = encoder.encode(REQUEST);
        oursWarmEncoder = new HpackEncoder();
        oursEncode(oursWarmEncoder);
        jettyWarmEncoder = new org.eclipse.jetty.http2.hpack.HpackEncoder();
        jettyEncode(jettyWarmEncoder);
        oursWarmDecoder = new HpackDecoder(4096, 1 << 20);
        oursWarmDecoder.decode(firstBlock.duplicate());
        jettyWarmDecoder = new org.eclipse.jetty.http2.hpack.HpackDecoder(1 << 20, System::nanoTime);
        jettyWarmDecoder.decode(firstBlock.duplicate());
    }

    /** Raw size of the list as HTTP/1.1 would carry it ("name: value\r\n"), for the report. */
    public static int rawBytes() {
        return REQUEST.stream().mapToInt(f -> f.name().length() + 2 + f.value().length() + 2).sum();
    }

    @Benchmark
    public ByteBuffer oursEncodeFirst() {
        return oursEncode(new HpackEncoder());
    }

    @Benchmark
    public ByteBuffer jettyEncodeFirst() {
        return jettyEncode(new org.eclipse.jetty.http2.hpack.HpackEncoder());
    }

    @Benchmark
    public ByteBuffer oursEncodeRepeat() {
        return oursEncode(oursWarmEncoder);
    }

    @Benchmark
    public ByteBuffer jettyEncodeRepeat() {
        return jettyEncode(jettyWarmEncoder);
    }

    @Benchmark
    public List<HeaderField> oursDecodeFirst() throws HpackException {
        return new HpackDecoder(4096, 1 << 20).decode(firstBlock.duplicate());
    }

    @Benchmark
    public MetaData jettyDecodeFirst() throws Exception {
        return new org.eclipse.jetty.http2.hpack.HpackDecoder(1 << 20, System::nanoTime).decode(firstBlock.duplicate());
    }

    @Benchmark
    public List<HeaderField> oursDecodeRepeat() throws HpackException {
        return oursWarmDecoder.decode(repeatBlock.duplicate());
    }

    @Benchmark
    public MetaData jettyDecodeRepeat() throws Exception {
        return jettyWarmDecoder.decode(repeatBlock.duplicate());
    }

    private ByteBuffer oursEncode(HpackEncoder encoder) {
        oursOut.clear();
        encoder.encode(REQUEST, oursOut);
        return oursOut.flip();
    }

    private ByteBuffer jettyEncode(org.eclipse.jetty.http2.hpack.HpackEncoder encoder) {
        jettyOut.clear();
        for (HttpField field : jettyFields) {
            encoder.encode(jettyOut, field);
        }
        return jettyOut.flip();
    }
}
