package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.Headers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpClient.Redirect;
import java.net.http.HttpRequest;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedirectRuleTest {

    @ParameterizedTest
    @CsvSource({
        "300, false", "301, true", "302, true", "303, true", "304, false", "305, false",
        "306, false", "307, true", "308, true", "200, false", "404, false"})
    void followsOnlyTheRedirectStatusesOfRfc9110(int status, boolean followable) {
        assertThat(RedirectRule.isFollowable(status), is(followable));
    }

    @ParameterizedTest
    @CsvSource({
        "301, POST, GET", "302, POST, GET", "303, POST, GET", "303, PUT, GET", "303, HEAD, HEAD",
        "307, POST, POST", "308, PUT, PUT", "301, PUT, PUT", "302, DELETE, DELETE"})
    void rfc9110_15_4_methodAfterRedirect(int status, String method, String expected) {
        assertThat(RedirectRule.method(status, method), is(expected));
    }

    @ParameterizedTest
    @CsvSource({
        "NORMAL, https://a/, http://b/, false", "NORMAL, http://a/, https://b/, true",
        "NORMAL, https://a/, https://b/, true", "ALWAYS, https://a/, http://b/, true",
        "ALWAYS, http://a/, ftp://b/, false"})
    void normalNeverDowngradesFromHttps(Redirect policy, URI from, URI to, boolean allowed) {
        assertThat(RedirectRule.allowed(policy, from, to), is(allowed));
    }

    @Test
    void resolvesARelativeLocationAndDropsTheBodyWhenTheMethodBecomesGet() throws Exception {
        ExchangeRequest post = ExchangeRequest.of(HttpRequest.newBuilder(URI.create("http://h:8/a/b?q"))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpClient.Version.HTTP_1_1);
        ResponseHead head = new ResponseHead(303, Headers.of("Location", "../c"), HttpClient.Version.HTTP_1_1);
        ExchangeRequest next = RedirectRule.next(Redirect.NORMAL, post, head).orElseThrow();
        assertThat(next.uri(), is(URI.create("http://h:8/c")));
        assertThat(next.method(), is("GET"));
        assertThat(next.body() == null, is(true));
        assertThat(next.fields().contains("Content-Type"), is(false));
    }

    @Test
    void doesNotFollowUnderNeverNorAStatusThatIsNoRedirect() throws Exception {
        ExchangeRequest get = ExchangeRequest.of(HttpRequest.newBuilder(URI.create("http://h/")).build(),
                HttpClient.Version.HTTP_1_1);
        ResponseHead located = new ResponseHead(302, Headers.of("Location", "/x"), HttpClient.Version.HTTP_1_1);
        ResponseHead choices = new ResponseHead(300, new Headers(), HttpClient.Version.HTTP_1_1);
        assertThat(RedirectRule.next(Redirect.NEVER, get, located), is(Optional.empty()));
        assertThat(RedirectRule.next(Redirect.ALWAYS, get, choices), is(Optional.empty()));
    }

    /** As the JDK's client: a redirect to follow that names no valid target fails the call. */
    @Test
    void aRedirectWithoutAUsableLocationIsAnError() {
        ExchangeRequest get = ExchangeRequest.of(HttpRequest.newBuilder(URI.create("http://h/")).build(),
                HttpClient.Version.HTTP_1_1);
        ResponseHead noLocation = new ResponseHead(302, new Headers(), HttpClient.Version.HTTP_1_1);
        ResponseHead badLocation = new ResponseHead(301, Headers.of("Location", "http://[bad"), HttpClient.Version.HTTP_1_1);
        IOException missing = assertThrows(IOException.class, () -> RedirectRule.next(Redirect.NORMAL, get, noLocation));
        assertThat(missing.getMessage(), is("invalid redirection: 302 from http://h/ has no Location field"));
        IOException invalid = assertThrows(IOException.class, () -> RedirectRule.next(Redirect.ALWAYS, get, badLocation));
        assertThat(invalid.getMessage().startsWith("invalid redirection: 301 from http://h/ to \"http://[bad\""), is(true));
    }
}
