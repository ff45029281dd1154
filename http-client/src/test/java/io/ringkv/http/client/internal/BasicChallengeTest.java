package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BasicChallengeTest {

    @Test
    void findsTheBasicChallengeAmongOthers() {
        Optional<BasicChallenge> found = BasicChallenge.find(
                List.of("Bearer realm=\"api\"", "Basic realm=\"ringkv\", charset=\"UTF-8\""));
        assertThat(found, is(Optional.of(new BasicChallenge("ringkv"))));
    }

    @Test
    void acceptsAnUnquotedRealmAndNoRealm() {
        assertThat(BasicChallenge.find(List.of("basic realm=x")).orElseThrow().realm(), is("x"));
        assertThat(BasicChallenge.find(List.of("Basic")).orElseThrow().realm(), is(""));
    }

    @Test
    void ignoresSchemesThatOnlyStartWithBasic() {
        assertThat(BasicChallenge.find(List.of("Basically realm=x")), is(Optional.empty()));
    }

    @Test
    void rfc7617_2_credentialsAreBase64OfUserColonPassword() {
        // The example of RFC 7617 §2.
        assertThat(BasicChallenge.credentials("Aladdin", "open sesame".toCharArray()),
                is("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="));
    }
}
