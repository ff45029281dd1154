package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The dashboard in a real browser: headless Chromium, driven by Selenium through chromedriver,
 * against a cluster of three node processes. The page loads without console errors, lists three
 * healthy nodes with live rates and charts, shows a key's replicas and the version each holds
 * (after a PUT, after a DELETE, for a key never written), and turns a SIGKILLed node down, with a
 * peer-down event. Waits are bounded polls: how fast the page reacts is not asserted.
 *
 * <p>Skipped, with a message, where Chromium or chromedriver is missing (Debian packages
 * {@code chromium} and {@code chromium-driver}, which {@code ./ringkv test} installs as root). The
 * system properties {@code ringkv.test.chromium} and {@code ringkv.test.chromedriver} point
 * elsewhere.
 */
class DashboardIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(100);

    @TempDir
    Path root;

    @TempDir
    Path profile;

    private ProcessCluster cluster;
    private WebDriver browser;

    @BeforeEach
    void start() throws Exception {
        Optional<Path> chromium = executable("ringkv.test.chromium", "chromium", "chromium-browser");
        Optional<Path> driver = executable("ringkv.test.chromedriver", "chromedriver");
        assumeTrue(chromium.isPresent() && driver.isPresent(), "the browser test of the dashboard needs Chromium and "
                + "chromedriver (Debian: apt-get install chromium chromium-driver; ./ringkv test installs them as root); "
                + "found chromium: " + chromium.isPresent() + ", chromedriver: " + driver.isPresent());
        cluster = new ProcessCluster(root, 3);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.get().toFile());
        // Without the background-networking flags Chromium reaches for the network on its own
        // (updates, sync, QUIC probes); a fresh profile keeps runs apart.
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,1200", "--user-data-dir=" + profile);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.get().toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void showsTheClusterLiveAKeysReplicasAndAKilledNodeGoingDown() throws Exception {
        assertThat(cluster.put(0, "greeting", "hello", "3/3").statusCode(), is(201));
        browser.get(cluster.url(0) + "/ui/");
        assertTheConsoleIsWatched();

        List<List<String>> healthy = await("three healthy nodes", this::nodeRows,
                rows -> rows.size() == 3 && rows.stream().allMatch(row -> row.get(1).equals("up")));
        assertThat(healthy.stream().map(row -> row.get(0)).toList(), contains(cluster.url(0), cluster.url(1), cluster.url(2)));

        // Live: with requests going to every node, each gets a rate and a line in every chart.
        await("a p99 line per node", () -> {
            sendTraffic();
            return seriesPoints("chart-p99");
        }, points -> points.size() == 3 && points.values().stream().allMatch(n -> n >= 2));
        assertThat(seriesPoints("chart-rate").keySet(), containsInAnyOrder(cluster.url(0), cluster.url(1), cluster.url(2)));
        List<String> rates = script("return Array.from(document.querySelectorAll('#nodes td.rate')).map(td => td.textContent)");
        assertThat("every node's rate is a number", rates, everyItem(matchesPattern("\\d+(\\.\\d)?")));

        List<List<String>> written = lookUp("greeting", rows -> rows.size() == 3);
        assertThat(written.stream().map(row -> row.get(0)).toList(), containsInAnyOrder(cluster.url(0), cluster.url(1), cluster.url(2)));
        assertThat(written.stream().map(row -> row.get(1)).toList(), everyItem(is("value")));
        assertThat("one version everywhere", written.stream().map(row -> row.get(2)).distinct().toList(), hasSize(1));
        long putVersion = Long.parseLong(written.get(0).get(2));

        assertThat(cluster.delete(1, "greeting", "3/3").statusCode(), is(202));
        List<List<String>> deleted = lookUp("greeting", rows -> rows.size() == 3 && rows.get(0).get(1).equals("tombstone"));
        assertThat(deleted.stream().map(row -> row.get(1)).toList(), everyItem(is("tombstone")));
        assertThat(deleted.stream().map(row -> row.get(2)).distinct().toList(), hasSize(1));
        assertThat("the tombstone is newer than the value", Long.parseLong(deleted.get(0).get(2)), greaterThan(putVersion));

        List<List<String>> never = lookUp("never-written", rows -> rows.size() == 3 && rows.get(0).get(1).equals("absent"));
        assertThat(never.stream().map(row -> row.get(1)).toList(), everyItem(is("absent")));

        cluster.kill(2);
        await("the killed node shown down", this::nodeRows, rows -> rows.size() == 3 && rows.get(2).get(1).equals("down"));
        List<List<String>> afterKill = nodeRows();
        assertThat(afterKill.get(0).get(1), is("up"));
        assertThat(afterKill.get(1).get(1), is("up"));
        await("a peer-down event for the killed node", () -> this.<List<String>>script(
                "return Array.from(document.querySelectorAll('#events tbody tr')).map(r => r.dataset.kind + ' ' + r.dataset.subject)"),
                events -> events.contains("peer-down " + cluster.url(2)));

        assertThat("console errors", severeConsoleEntries(), is(empty()));
    }

    /** Each node row: node, health. */
    private List<List<String>> nodeRows() {
        return script("return Array.from(document.querySelectorAll('#nodes tbody tr')).map(r => [r.dataset.node, r.dataset.health])");
    }

    /** Each line of a chart: node to how many points it has. */
    private Map<String, Long> seriesPoints(String chart) {
        List<List<Object>> series = script("return Array.from(document.querySelectorAll('#" + chart
                + " path.series')).map(p => [p.dataset.node, Number(p.dataset.points)])");
        Map<String, Long> points = new java.util.HashMap<>();
        series.forEach(line -> points.put((String) line.get(0), ((Number) line.get(1)).longValue()));
        return points;
    }

    /** Types the key into the box and submits it, as a person would; then each replica row: node, holds, timestamp. */
    private List<List<String>> lookUp(String key, Predicate<List<List<String>>> done) throws InterruptedException {
        script("document.querySelector('#replicas tbody').replaceChildren(); return null;");
        WebElement input = browser.findElement(By.id("key"));
        input.clear();
        input.sendKeys(key);
        browser.findElement(By.cssSelector("#lookup button")).click();
        return await("the replicas of " + key, () -> script("return Array.from(document.querySelectorAll('#replicas tbody tr'))"
                + ".map(r => [r.dataset.node, r.dataset.holds, r.dataset.timestamp ?? ''])"), done);
    }

    private void sendTraffic() {
        try {
            for (int node = 0; node < cluster.size(); node++) {
                cluster.get(node, "greeting", "1/1");
            }
        } catch (Exception e) {
            throw new AssertionError("a GET failed", e);
        }
    }

    /**
     * Proves that console errors reach this test (else "no console errors" would pass whatever
     * the page did), then forgets the probe.
     */
    private void assertTheConsoleIsWatched() {
        script("console.error('ringkv-console-probe'); return null;");
        List<String> probe = severeConsoleEntries();
        assertThat(probe.toString(), probe.stream().anyMatch(entry -> entry.contains("ringkv-console-probe")), is(true));
        assertThat("errors other than the probe", probe.stream().filter(entry -> !entry.contains("ringkv-console-probe")).toList(),
                is(empty()));
    }

    /** The console's errors since the last call (the browser hands each entry out once). */
    private List<String> severeConsoleEntries() {
        List<String> severe = new ArrayList<>();
        for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
            if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
                severe.add(entry.getMessage());
            }
        }
        return severe;
    }

    @SuppressWarnings("unchecked")
    private <T> T script(String javascript) {
        return (T) ((JavascriptExecutor) browser).executeScript(javascript);
    }

    private <T> T await(String what, java.util.function.Supplier<T> probe, Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        T last = probe.get();
        while (!done.test(last)) {
            assertThat(what + " within " + WAIT + "; last seen: " + last, System.nanoTime() < deadline, is(true));
            Thread.sleep(POLL);
            last = probe.get();
        }
        return last;
    }

    /** The system property's path, else the first of the names found on the PATH. */
    private static Optional<Path> executable(String property, String... names) {
        String configured = System.getProperty(property);
        if (configured != null) {
            return Optional.of(Path.of(configured)).filter(Files::isExecutable);
        }
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .flatMap(dir -> Stream.of(names).map(name -> Path.of(dir, name)))
                .filter(Files::isExecutable)
                .findFirst();
    }
}
