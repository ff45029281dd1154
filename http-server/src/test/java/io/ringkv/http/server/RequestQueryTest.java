package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.Headers;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How a request's query is read: first values, exact bytes, and names given twice. */
class RequestQueryTest {

    private static Request withQuery(String query) {
        return new Request("GET", "/", query, Headers.of(), new byte[0], new InetSocketAddress(0), Protocol.HTTP_1_1);
    }

    @Test
    void aParameterIsReadByItsDecodedNameAndTheFirstValueWins() {
        Request request = withQuery("i%64=a&id=b&x");
        assertEquals(Optional.of("a"), request.queryParam("id"));
        assertEquals(Optional.of(""), request.queryParam("x"));
        assertArrayEquals(new byte[] {(byte) 0xFF, ' '}, withQuery("k=%FF+").queryParamBytes("k").orElseThrow());
    }

    @Test
    void aNameGivenTwiceIsFoundHoweverItIsSpelled() {
        assertEquals(Optional.empty(), Request.repeatedParameter(""));
        assertEquals(Optional.empty(), Request.repeatedParameter("id=a"));
        assertEquals(Optional.empty(), Request.repeatedParameter("id=a&replicas=2/3&ttl=5"));
        assertEquals(Optional.empty(), Request.repeatedParameter("a=1&&b=2&"), "empty segments name nothing");
        assertEquals(Optional.of("id"), Request.repeatedParameter("id=a&id=b"));
        assertEquals(Optional.of("id"), Request.repeatedParameter("id=a&id"), "a name without a value counts");
        assertEquals(Optional.of("id"), Request.repeatedParameter("id=a&i%64=b"), "names compare decoded");
        assertEquals(Optional.of("a b"), Request.repeatedParameter("a+b=1&a%20b=2"));
    }

    @Test
    void manyNamesAreComparedThroughASet() {
        String distinct = IntStream.range(0, 2_000).mapToObj(i -> "p" + i + "=v").collect(Collectors.joining("&"));
        assertEquals(Optional.empty(), Request.repeatedParameter(distinct));
        assertEquals(Optional.of("p7"), Request.repeatedParameter(distinct + "&p7=w"));
    }

    @Test
    void aMalformedNameIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> Request.repeatedParameter("a=1&%zz=2"));
    }
}
