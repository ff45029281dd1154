package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackException.SessionException;
import org.eclipse.jetty.http2.hpack.HpackException.StreamException;
import org.junit.jupiter.api.Test;

/**
 * Our HPACK against Jetty's, over many seeded random header lists on one long-lived context
 * per direction (so the dynamic table fills, evicts and is referenced): what one encodes the
 * other decodes to the same list.
 */
class JettyCrossCheckTest {
    private static final long SEED = 0x5eed_7541L;
    private static final int LISTS = 600;
    private static final String[] COMMON_NAMES = {"accept", "accept-encoding", "accept-language", "cache-control",
        "content-type", "cookie", "user-agent", "authorization", "if-none-match", "referer", "x-request-id",
        "x-forwarded-for", "etag", "vary"};

    @Test
    void listsEncodedByJettyDecodeIdenticallyWithOurs() throws Exception {
        Random random = new Random(SEED);
        org.eclipse.jetty.http2.hpack.HpackEncoder jetty = new org.eclipse.jetty.http2.hpack.HpackEncoder();
        HpackDecoder ours = new HpackDecoder(HpackDecoder.DEFAULT_TABLE_CAPACITY, Long.MAX_VALUE);
        for (int i = 0; i < LISTS; i++) {
            List<HeaderField> list = randomList(random);
            ByteBuffer block = ByteBuffer.allocate(64 * 1024);
            for (HeaderField field : list) {
                jetty.encode(block, new HttpField(field.name(), field.value()));
            }
            block.flip();
            assertThat("list " + i, withoutSensitivity(ours.decode(block)), equalTo(list));
        }
    }

    @Test
    void listsEncodedByUsDecodeIdenticallyWithJetty() throws Exception {
        Random random = new Random(SEED + 1);
        HpackEncoder ours = new HpackEncoder();
        org.eclipse.jetty.http2.hpack.HpackDecoder jetty =
                new org.eclipse.jetty.http2.hpack.HpackDecoder(1 << 20, () -> 0L);
        for (int i = 0; i < LISTS; i++) {
            List<HeaderField> list = randomList(random);
            assertThat("list " + i, decodeWithJetty(jetty, ours.encode(list)), equalTo(list));
        }
    }

    /**
     * The encoder workload (sensitive fields, probed names, long and empty values, octets above
     * 0x7f, table size updates) under each configuration whose table fits Jetty's default, minus
     * pseudo-headers (which Jetty checks as a request or response) and values with an outer
     * space (which it refuses as malformed).
     */
    @Test
    void workloadListsUnderEachConfigurationDecodeIdenticallyWithJetty() throws Exception {
        for (HpackEncoder.Config config : EncoderWorkload.configs()) {
            if (config.tableCapacity() > HpackDecoder.DEFAULT_TABLE_CAPACITY) {
                continue;
            }
            Random random = new Random(SEED + 2);
            HpackEncoder ours = new HpackEncoder(config);
            org.eclipse.jetty.http2.hpack.HpackDecoder jetty =
                    new org.eclipse.jetty.http2.hpack.HpackDecoder(1 << 20, () -> 0L);
            for (int i = 0; i < 1_500; i++) {
                if (i % 100 == 99) {
                    ours.maxTableCapacity(new int[] {0, 300, 4096, 1000}[random.nextInt(4)]);
                }
                List<HeaderField> list = withoutSensitivity(EncoderWorkload.list(random).stream()
                        .filter(f -> !f.name().startsWith(":") && f.value().equals(f.value().strip())).toList());
                assertThat(config + " list " + i, decodeWithJetty(jetty, ours.encode(list)), equalTo(list));
            }
        }
    }

    @Test
    void requestWithPseudoHeadersCrossesBothWays() throws Exception {
        List<HeaderField> request = List.of(new HeaderField(":method", "PUT"), new HeaderField(":scheme", "http"),
                new HeaderField(":authority", "node-1:8080"), new HeaderField(":path", "/v0/entity?id=k1"),
                new HeaderField("content-type", "application/octet-stream"));
        org.eclipse.jetty.http2.hpack.HpackDecoder jetty =
                new org.eclipse.jetty.http2.hpack.HpackDecoder(1 << 20, () -> 0L);
        MetaData.Request decoded = (MetaData.Request) jetty.decode(new HpackEncoder().encode(request));
        assertThat(decoded.getMethod(), equalTo("PUT"));
        assertThat(decoded.getHttpURI().getPathQuery(), equalTo("/v0/entity?id=k1"));
        assertThat(decoded.getHttpFields().get("content-type"), equalTo("application/octet-stream"));

        ByteBuffer block = ByteBuffer.allocate(4096);
        org.eclipse.jetty.http2.hpack.HpackEncoder encoder = new org.eclipse.jetty.http2.hpack.HpackEncoder();
        request.forEach(f -> encoder.encode(block, new HttpField(f.name(), f.value())));
        assertThat(new HpackDecoder(4096, Long.MAX_VALUE).decode(block.flip()), equalTo(request));
    }

    private static List<HeaderField> decodeWithJetty(org.eclipse.jetty.http2.hpack.HpackDecoder jetty,
                                                     ByteBuffer block) throws SessionException, StreamException {
        List<HeaderField> fields = new ArrayList<>();
        for (HttpField field : jetty.decode(block).getHttpFields()) {
            fields.add(new HeaderField(field.getLowerCaseName(), field.getValue()));
        }
        return fields;
    }

    private static List<HeaderField> withoutSensitivity(List<HeaderField> fields) {
        return fields.stream().map(f -> new HeaderField(f.name(), f.value())).toList();
    }

    /** 1..20 fields; names and values drawn so that many repeat across lists. */
    static List<HeaderField> randomList(Random random) {
        int count = 1 + random.nextInt(20);
        List<HeaderField> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = random.nextInt(3) > 0 ? COMMON_NAMES[random.nextInt(COMMON_NAMES.length)]
                    : "x-" + token(random, 1 + random.nextInt(12), "abcdefghijklmnopqrstuvwxyz0123456789-");
            String value = random.nextInt(4) == 0 ? "v" + random.nextInt(20) : printable(random, random.nextInt(90));
            list.add(new HeaderField(name, value));
        }
        return list;
    }

    private static String token(Random random, int length, String alphabet) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /** Visible ASCII with inner spaces only (field values carry no leading or trailing space). */
    private static String printable(Random random, int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            boolean edge = i == 0 || i == length - 1;
            text.append((char) (edge ? 0x21 + random.nextInt(94) : 0x20 + random.nextInt(95)));
        }
        return text.toString();
    }
}
