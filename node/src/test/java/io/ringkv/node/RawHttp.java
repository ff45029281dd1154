package io.ringkv.node;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A minimal HTTP/1.1 exchange over a raw socket, for tests that must see the wire: individual
 * chunks of a chunked body, exact status lines. Reads exactly one response.
 */
final class RawHttp {
    record Reply(int status, Map<String, String> headers, List<byte[]> chunks, byte[] body) { }

    private RawHttp() {
    }

    static Reply get(int port, String target) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            String request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return read(socket.getInputStream());
        }
    }

    /**
     * Any request with the given extra header lines ("Name: value") and body, over a fresh connection;
     * {@code Host: 127.0.0.1} unless the lines give a Host of their own.
     */
    static Reply send(int port, String method, String target, java.util.Map<String, String> headers, byte[] body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            boolean ownHost = headers.keySet().stream().anyMatch(name -> name.equalsIgnoreCase("Host"));
            StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\n" + (ownHost ? "" : "Host: 127.0.0.1\r\n")
                    + "Connection: close\r\nContent-Length: " + body.length + "\r\n");
            headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            head.append("\r\n");
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(body);
            return read(socket.getInputStream());
        }
    }

    static Reply read(InputStream in) throws IOException {
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        List<byte[]> chunks = new ArrayList<>();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = chunkSize(in); size > 0; size = chunkSize(in)) {
                byte[] chunk = in.readNBytes(size);
                chunks.add(chunk);
                body.writeBytes(chunk);
                line(in);
            }
            line(in);
        } else if (headers.containsKey("content-length")) {
            body.writeBytes(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        }
        return new Reply(status, headers, chunks, body.toByteArray());
    }

    private static int chunkSize(InputStream in) throws IOException {
        String line = line(in);
        int semicolon = line.indexOf(';');
        return Integer.parseInt(semicolon >= 0 ? line.substring(0, semicolon) : line, 16);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("connection closed mid-line");
            }
            if (b != '\r') {
                bytes.write(b);
            }
        }
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }
}
