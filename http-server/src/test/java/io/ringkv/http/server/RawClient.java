package io.ringkv.http.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A plain-socket HTTP/1.1 client that writes exact bytes and reads responses strictly. Test helper. */
final class RawClient implements AutoCloseable {
    static final int READ_TIMEOUT_MILLIS = 20_000;

    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawClient(int port) throws IOException {
        this(new Socket(InetAddress.getLoopbackAddress(), port));
    }

    /** Over a socket already connected (a TLS one, say). */
    RawClient(Socket connected) throws IOException {
        socket = connected;
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** A parsed response. {@code body} is de-chunked; {@code chunked} says whether it was. */
    record Reply(int status, Map<String, String> headers, byte[] body, boolean chunked, boolean complete) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    RawClient send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawClient send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n";
    }

    Reply read() throws IOException {
        return read(false);
    }

    /** Reads one response; {@code headRequest}: no body follows whatever the headers say. */
    Reply read(boolean headRequest) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String field = line(); !field.isEmpty(); field = line()) {
            int colon = field.indexOf(':');
            headers.put(field.substring(0, colon).toLowerCase(Locale.ROOT), field.substring(colon + 1).trim());
        }
        if (headRequest || status / 100 == 1 || status == 204 || status == 304) {
            return new Reply(status, headers, new byte[0], false, true);
        }
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            return readChunked(status, headers);
        }
        String length = headers.get("content-length");
        if (length != null) {
            byte[] body = in.readNBytes(Integer.parseInt(length));
            return new Reply(status, headers, body, false, body.length == Integer.parseInt(length));
        }
        return new Reply(status, headers, in.readAllBytes(), false, true);
    }

    private Reply readChunked(int status, Map<String, String> headers) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = line();
            if (sizeLine == null) {
                return new Reply(status, headers, body.toByteArray(), true, false);
            }
            int size = Integer.parseInt(sizeLine.trim(), 16);
            if (size == 0) {
                while (!line().isEmpty()) {
                    // trailer fields
                }
                return new Reply(status, headers, body.toByteArray(), true, true);
            }
            byte[] data = in.readNBytes(size);
            body.writeBytes(data);
            if (data.length < size || !"".equals(line())) {
                return new Reply(status, headers, body.toByteArray(), true, false);
            }
        }
    }

    /** A CRLF-terminated line without its CRLF, or null at end of stream. */
    String line() throws IOException {
        StringBuilder text = new StringBuilder();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                int end = text.length();
                return end > 0 && text.charAt(end - 1) == '\r' ? text.substring(0, end - 1) : text.toString();
            }
            text.append((char) b);
        }
        return text.isEmpty() ? null : text.toString();
    }

    /** True once the server has closed (end of stream or a reset); then closes this side too, as a client would. */
    boolean closedByServer() {
        boolean closed;
        try {
            closed = in.read() == -1;
        } catch (IOException reset) {
            closed = true;
        }
        if (closed) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
        return closed;
    }

    InputStream input() {
        return in;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
