package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.Headers;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NextPageLinkTest {

    private static String link(String query, String nextStart) {
        Request request = new Request("GET", "/v0/entities", query, new Headers(), new byte[0], null, Protocol.HTTP_1_1);
        return NextPageLink.field(request, "start", nextStart.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void onlyTheStartMovesAndTheOtherParametersKeepTheirOrder() {
        assertThat(link("limit=2&start=a&end=z&keysOnly=true&replicas=2/3", "b\0"),
                is("</v0/entities?limit=2&start=b%00&end=z&keysOnly=true&replicas=2%2F3>; rel=\"next\""));
    }

    @Test
    void everyByteOutsideTheUnreservedSetIsEscapedSoTheLinkNamesTheSameBytes() {
        assertThat(link("start=x&limit=1", "a b&c%d+e=f>g\"h#i?j/k\u00e9"),
                is("</v0/entities?start=a%20b%26c%25d%2Be%3Df%3Eg%22h%23i%3Fj%2Fk%C3%A9&limit=1>; rel=\"next\""));
    }

    @Test
    void otherParametersAreReencodedFromTheirBytes() {
        // '+' is a space to the API, so it is written %20; a parameter without '=' stays without one.
        assertThat(link("start=a&end=x+y%7e&local&limit=3", "b"),
                is("</v0/entities?start=b&end=x%20y~&local&limit=3>; rel=\"next\""));
    }

    @Test
    void onlyTheFirstStartIsTheOneTheApiReads() {
        assertThat(link("start=a&start=q&limit=1", "b"), is("</v0/entities?start=b&start=q&limit=1>; rel=\"next\""));
    }
}
