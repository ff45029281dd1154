package io.ringkv.node.dashboard;

import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The dashboard's page, script and style sheet, read once from the node's own jar
 * ({@code io/ringkv/node/ui/}), so the dashboard works without any network but the node's.
 *
 * <p>Only a fixed set of names is served, looked up as the exact request path: nothing is
 * resolved against a directory, so no path ({@code /ui/../metrics}, {@code /ui/%2e%2e/},
 * {@code /ui//app.js}) can reach anything else; every other name is a {@code 404}. Each answer
 * carries an {@code ETag} (a {@code 304} when the browser has it) and {@code no-cache}, so a
 * browser revalidates and an upgraded node's files are picked up at once. The page's
 * {@code Content-Security-Policy} allows scripts, styles and requests from the node only: a stray
 * CDN reference in our files would fail in the browser test rather than slip through.
 *
 * <p>Threading: immutable after construction; {@link #answer} from any thread.
 */
public final class DashboardAssets {

    private static final String RESOURCES = "/io/ringkv/node/ui/";
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    /** A file, ready to send. */
    private record Asset(String contentType, byte[] bytes, String etag) {
    }

    private final Map<String, Asset> byPath;

    private DashboardAssets(Map<String, Asset> byPath) {
        this.byPath = byPath;
    }

    /**
     * Reads every file of the dashboard from the class path.
     *
     * @throws IllegalStateException when one is missing (a broken build: the node should not start)
     */
    public static DashboardAssets load() {
        return new DashboardAssets(Map.of(
                "/ui/", asset("index.html", "text/html; charset=utf-8"),
                "/ui/app.js", asset("app.js", "text/javascript; charset=utf-8"),
                "/ui/app.css", asset("app.css", "text/css; charset=utf-8")));
    }

    /** The answer to a GET or HEAD of {@code request.path()}; {@code 404} for a name that is not one of the files. */
    Response answer(Request request) {
        Asset asset = byPath.get(request.path());
        if (asset == null) {
            return Response.text(404, "no such file: " + request.path());
        }
        boolean cached = request.headers().first("If-None-Match").map(tags -> tags.contains(asset.etag())).orElse(false);
        Response response = cached ? Response.of(304) : Response.of(200, asset.bytes()).withHeader("Content-Type", asset.contentType());
        return response.withHeader("ETag", asset.etag())
                .withHeader("Cache-Control", "no-cache")
                .withHeader("X-Content-Type-Options", "nosniff")
                .withHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    }

    private static Asset asset(String name, String contentType) {
        try (InputStream in = DashboardAssets.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard file " + RESOURCES + name + " is not on the class path");
            }
            byte[] bytes = in.readAllBytes();
            return new Asset(contentType, bytes, "\"" + HexFormat.of().formatHex(sha256(bytes), 0, 8) + "\"");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dashboard file " + name, e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
