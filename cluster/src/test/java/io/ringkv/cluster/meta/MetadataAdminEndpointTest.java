package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.http.Headers;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A member-state change whose body does not parse is refused with 400 and a message before the
 * metadata group is asked anything: the endpoint here has no group at all, so a body that got
 * past the parsing would fail the test rather than be submitted.
 */
class MetadataAdminEndpointTest {

    private final MetadataAdminEndpoint endpoint = new MetadataAdminEndpoint(null, ClusterNode.parse("http://127.0.0.1:7000"));

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "nx|the body must be MEMBER_ID STATE [FROM_STATE]",
        "nx left joining normal|the body must be MEMBER_ID STATE [FROM_STATE]",
        "nx sideways|unknown state 'sideways'",
        "nx left sideways|unknown state 'sideways'"})
    void aMalformedMemberStateBodyIs400WithItsReason(String body, String reason) throws Exception {
        assertRefused(body, reason);
    }

    @org.junit.jupiter.api.Test
    void aMemberIdLongerThanAMemberMayHaveIs400() throws Exception {
        assertRefused("n".repeat(Member.TEXT_BYTES_MAX + 1) + " left joining", "the member id must be 1 to");
    }

    private void assertRefused(String body, String reason) throws Exception {
        Request request = new Request("POST", InternalProtocol.META_MEMBER_STATE_PATH, "", Headers.of(),
                body.getBytes(StandardCharsets.UTF_8), new InetSocketAddress("127.0.0.1", 40000), Protocol.HTTP_1_1);
        Response response = endpoint.handle(request).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(response.status(), is(400));
        assertThat(new String(((ResponseBody.Fixed) response.body()).bytes(), StandardCharsets.UTF_8), containsString(reason));
    }
}
