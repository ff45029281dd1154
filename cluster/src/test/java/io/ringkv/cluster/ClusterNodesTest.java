package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ClusterNodesTest {

    @ParameterizedTest
    @CsvSource({
        "http://localhost:8080, http://127.0.0.1:8080",
        "http://LocalHost:8080/, http://127.0.0.1:8080",
        "http://node.localhost:8080, http://127.0.0.1:8080",
        "HTTP://node-1:9000, http://node-1:9000",
        "http://node-1, http://node-1:80",
        "' http://10.0.0.5:8080 ', http://10.0.0.5:8080",
        "http://[::1]:8080, http://[::1]:8080",
        "HTTPS://Node-1:9000/, https://node-1:9000",
        "https://node-1, https://node-1:443",
    })
    void normalisesEquivalentUrlsToOneId(String url, String id) {
        assertThat(ClusterNode.parse(url).id(), is(id));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "ftp://a:1", "localhost:8080", "http://:8080",
        "http://a:1/path", "http://a:1?x=1", "http://a:1#f", "http://user@a:1", "http://a:99999", "not a url"})
    void rejectsUrlsThatAreNotHttpHostPort(String url) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterNode.parse(url));
        assertThat(e.getMessage(), containsString("URL"));
    }

    @Test
    void localhostAnd127001AreOneNodeWithOneFingerprint() {
        ClusterNodes byName = ClusterNodes.of(List.of("http://localhost:1", "http://localhost:2"), "http://127.0.0.1:1");
        ClusterNodes byAddress = ClusterNodes.of(List.of("http://127.0.0.1:2", "http://127.0.0.1:1"), "http://localhost:2");
        assertThat(byName.fingerprint(), is(byAddress.fingerprint()));
        assertThrows(IllegalArgumentException.class,
                () -> ClusterNodes.of(List.of("http://localhost:1", "http://127.0.0.1:1"), "http://127.0.0.1:1"));
    }

    @Test
    void anotherNodeListHasAnotherFingerprint() {
        ClusterNodes three = ClusterNodes.of(List.of("http://a:1", "http://b:1", "http://c:1"), "http://a:1");
        ClusterNodes two = ClusterNodes.of(List.of("http://a:1", "http://b:1"), "http://a:1");
        assertThat(three.fingerprint().equals(two.fingerprint()), is(false));
        assertThat(three.fingerprint().length(), is(16));
    }

    @Test
    void rejectsTheSameNodeListedTwiceEvenWhenSpelledDifferently() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterNodes.of(List.of("http://a:1", "http://b:2", "http://A:1/"), "http://a:1"));
        assertThat(e.getMessage(), containsString("listed twice"));
    }

    @Test
    void rejectsASelfUrlOutsideTheList() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClusterNodes.of(List.of("http://a:1", "http://b:2"), "http://c:3"));
        assertThat(e.getMessage(), containsString("not in the cluster list"));
    }

    @Test
    void httpsAndHttpAreDifferentNodesAndCannotBeMixed() {
        assertThat(ClusterNode.parse("https://a:1").equals(ClusterNode.parse("http://a:1")), is(false));
        assertThat(ClusterNode.parse("https://a:1").secure(), is(true));
        IllegalArgumentException mixed = assertThrows(IllegalArgumentException.class,
                () -> ClusterNodes.of(List.of("https://a:1", "http://b:2"), "https://a:1"));
        assertThat(mixed.getMessage(), containsString("list every node as https://"));
        IllegalArgumentException plainSelf = assertThrows(IllegalArgumentException.class,
                () -> ClusterNodes.of(List.of("https://a:1", "https://b:2"), "http://a:1"));
        assertThat(plainSelf.getMessage(), containsString("--tls-cert"));
    }

    @Test
    void rejectsAnEmptyList() {
        assertThrows(IllegalArgumentException.class, () -> ClusterNodes.of(List.of(), "http://a:1"));
    }

    @Test
    void findsSelfByNormalisedUrlAndListsTheOthers() {
        ClusterNodes nodes = ClusterNodes.of(List.of("http://a:1", "http://b:2", "http://c:3"), "http://B:2/");
        assertThat(nodes.self(), equalTo(ClusterNode.parse("http://b:2")));
        assertThat(nodes.others(), contains(ClusterNode.parse("http://a:1"), ClusterNode.parse("http://c:3")));
        assertThat(nodes.size(), is(3));
    }
}
