package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connection limits of a node process: {@code --connections-max} closes connections beyond it at
 * once, and running out of file descriptors ({@code ulimit -n}) pauses accepting, with one log
 * line, instead of spinning the loop and flooding the log; the node serves again once descriptors
 * are free.
 */
@Timeout(120)
class ConnectionLimitsIT {
    @TempDir
    Path root;

    @Test
    void connectionsBeyondTheLimitAreClosedAtOnce() throws Exception {
        int port = LocalPorts.free(1).getFirst();
        NodeProcess node = new NodeProcess("limited", List.of("--port", Integer.toString(port), "--data",
                root.resolve("d").toString(), "--connections-max", "2", "--warm-up", "PT0S"), new PrintStream(new ByteArrayOutputStream())).start();
        try {
            assertThat(node.awaitReady("http://127.0.0.1:" + port, Duration.ofSeconds(60)), is(true));
            // Both slots held by connections the node has served: until the node has seen the
            // readiness probe's connection close, it still counts it, and would close the second.
            try (Socket first = servedConnection(port);
                 Socket second = servedConnection(port);
                 Socket third = new Socket(InetAddress.getLoopbackAddress(), port)) {
                third.setSoTimeout(10_000);
                assertThat("the third connection is closed by the node", closedByPeer(third), is(true));
            }
            // The node counts a connection until it has seen it close: poll until a new one is served.
            assertThat(awaitStatus(port), is(200));
        } finally {
            node.stop(Duration.ofSeconds(10));
        }
    }

    @Test
    void runningOutOfDescriptorsPausesAcceptingQuietlyAndRecovers() throws Exception {
        int port = LocalPorts.free(1).getFirst();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "ulimit -n 256 && exec '" + java + "' -Xmx256m --enable-native-access=ALL-UNNAMED -cp '"
                + System.getProperty("java.class.path") + "' " + Main.class.getName() + " serve --port " + port
                + " --data '" + root.resolve("e") + "' --warm-up PT0S";
        Process process = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        Thread pump = new Thread(() -> {
            try {
                process.getInputStream().transferTo(log);
            } catch (java.io.IOException ignored) {
                // The process ended.
            }
        });
        pump.setDaemon(true);
        pump.start();
        List<Socket> hogs = new ArrayList<>();
        try {
            assertThat(awaitStatus(port), is(200));
            for (int i = 0; i < 400; i++) { // more than the node's 256 descriptors
                Socket socket = new Socket();
                socket.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
                hogs.add(socket);
            }
            Thread.sleep(3_000);
            long failureLines = log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("accept on")).count();
            assertThat("log lines about failed accepts", failureLines, lessThan(5L));
            for (Socket hog : hogs) {
                hog.close();
            }
            hogs.clear();
            assertThat("serves again once descriptors are free", awaitStatus(port), is(200));
        } finally {
            for (Socket hog : hogs) {
                hog.close();
            }
            process.destroy();
            process.waitFor();
        }
    }

    /** A connection the node answered a request on (so it holds one of its slots); tries again while the node closes them. */
    private static Socket servedConnection(int port) throws Exception {
        for (int attempt = 0; attempt < 100; attempt++) {
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(10_000);
            try {
                socket.getOutputStream().write("GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                byte[] head = socket.getInputStream().readNBytes("HTTP/1.1 200".length());
                if (new String(head, StandardCharsets.US_ASCII).equals("HTTP/1.1 200")) {
                    return socket;
                }
            } catch (java.io.IOException closedAtOnce) {
                // over the limit still: the node has not seen an earlier connection close yet
            }
            socket.close();
            Thread.sleep(100);
        }
        throw new AssertionError("no connection was served in 100 attempts");
    }

    /** End of stream or a reset: either way the node closed the connection. */
    private static boolean closedByPeer(Socket socket) throws java.io.IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    private static int awaitStatus(int port) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                int status = RawHttp.get(port, "/v0/status").status();
                if (status == 200) {
                    return status;
                }
            } catch (java.io.IOException notYet) {
                // Not listening yet, or no descriptor left to accept with.
            }
            Thread.sleep(200);
        }
        return -1;
    }
}
