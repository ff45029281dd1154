package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paged ranges and versions on a 3-node cluster of node processes: a page is cut from the
 * cluster-wide merge (each key once, freshest version, deletions dropped) whichever node is asked,
 * and a version's tag is the same on every node.
 */
class PagedRangeIT {
    private static final Pattern NEXT = Pattern.compile("<([^>]*)>; rel=\"next\"");

    @TempDir
    static Path root;

    private static ProcessCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ProcessCluster(root, 3);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void pagesOfTheMergedRangeAreTenTenAndFiveWithEveryKeyOnceInOrder() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String key = String.format("page-%02d", i);
            keys.add(key);
            // Every second key's newest version on its first replica only: the other two still
            // hold the old one, and the merge must pick the newer. One coordinator per key, so
            // its clock orders the two writes.
            assertThat(cluster.put(i % 3, key, "old-" + i, "3/3").statusCode(), is(201));
            assertThat(cluster.put(i % 3, key, "v" + i, i % 2 == 0 ? "1/1" : null).statusCode(), is(201));
        }
        assertThat(cluster.put(0, "page-05x", "deleted", "3/3").statusCode(), is(201));
        assertThat(cluster.delete(0, "page-05x", "1/1").statusCode(), is(202));

        for (int node = 0; node < 3; node++) {
            List<Integer> pageSizes = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            String target = "/v0/entities?start=page-&end=page.&limit=10";
            while (target != null) {
                RawHttp.Reply page = RawHttp.get(cluster.port(node), target);
                assertThat(page.status(), is(200));
                pageSizes.add(page.chunks().size());
                for (byte[] chunk : page.chunks()) {
                    String text = new String(chunk, StandardCharsets.UTF_8);
                    String key = text.substring(0, text.indexOf('\n'));
                    assertThat("the freshest version", text, is(key + "\nv" + Integer.parseInt(key.substring(5))));
                    seen.add(key);
                }
                target = next(page.headers().get("link"));
            }
            assertThat(pageSizes, equalTo(List.of(10, 10, 5)));
            assertThat(seen, equalTo(keys));
        }

        String all = "";
        String target = "/v0/entities?start=page-&end=page.&limit=10&keysOnly=true";
        while (target != null) {
            HttpResponse<String> page = cluster.send(2, "GET", target, null);
            all += page.body();
            target = next(page.headers().firstValue("Link").orElse(null));
        }
        assertThat(all, is(String.join("\n", keys) + "\n"));
    }

    @Test
    void everyNodeNamesTheSameVersionWithTheSameTag() throws Exception {
        assertThat(cluster.put(0, "tagged", "v1", "3/3").statusCode(), is(201));
        String tag = cluster.get(0, "tagged", "3/3").headers().firstValue("ETag").orElseThrow();
        for (int node = 1; node < 3; node++) {
            assertThat(cluster.get(node, "tagged", "3/3").headers().firstValue("ETag").orElseThrow(), is(tag));
        }
        assertThat(cluster.put(1, "tagged", "v2", "3/3").statusCode(), is(201));
        HttpResponse<String> changed = cluster.send(2, "GET", "/v0/entity?id=tagged", null);
        assertThat(changed.body(), is("v2"));
        assertThat(changed.headers().firstValue("ETag").orElseThrow().equals(tag), is(false));
    }

    private static String next(String linkField) {
        if (linkField == null) {
            return null;
        }
        Matcher matcher = NEXT.matcher(linkField);
        assertThat(linkField, matcher.matches(), is(true));
        return matcher.group(1);
    }
}
