package io.ringkv.store;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's native library from one copy per user and library build, kept in a directory
 * of the temporary directory, instead of the copy RocksDB's own loader extracts for every JVM:
 * that copy (17 MB) is deleted only when the JVM exits normally, so every node process that was
 * killed (fault tests, chaos runs, {@code kill -9}) left one behind in {@code /tmp}.
 *
 * <p>The copy is {@code <java.io.tmpdir>/ringkv-native-<user>/<digest>/<library file>}, where the
 * digest names the jar entry it came from (its URL and size), so another RocksDB version gets its
 * own. Both directories are made readable and writable by the user only, and an existing one is
 * used only when it still is and belongs to the user: a directory others can write could hold a
 * library planted there. The file is written under a temporary name and moved into place, so a JVM
 * starting at the same time never loads half a file. Whatever goes wrong falls back to RocksDB's
 * own loader, with one log line.
 *
 * <p>Threading: {@link #load} is called from {@link RocksDbStorageEngine}'s static initializer,
 * which the JVM runs once; concurrent JVMs are safe through the atomic move.
 */
final class RocksDbNativeLibrary {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbNativeLibrary.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private RocksDbNativeLibrary() {
    }

    static void load() {
        Path dir;
        try {
            dir = extractOnce(Path.of(System.getProperty("java.io.tmpdir")));
        } catch (IOException | RuntimeException e) {
            LOG.info("RocksDB's native library is extracted by RocksDB itself (one copy per process): {}", e.toString());
            RocksDB.loadLibrary();
            return;
        }
        try {
            RocksDB.loadLibrary(List.of(dir.toString()));
        } catch (UnsatisfiedLinkError e) {
            LOG.warn("cannot load RocksDB's native library from {}; RocksDB extracts its own copy: {}", dir, e.toString());
            RocksDB.loadLibrary();
        }
    }

    /** The directory holding the library, extracting it there first if it is not there yet. */
    static Path extractOnce(Path tmp) throws IOException {
        String entry = Environment.getJniLibraryFileName("rocksdb");
        // The name RocksDB.loadLibrary(paths) looks for in each path (it passes "rocksdbjni" where
        // the jar entry's name comes from "rocksdb": librocksdbjnijni-linux64.so on x86-64 Linux).
        // Should a later RocksDB look for another name, loading fails and falls back (logged), and
        // RocksDbProcessDeathTest sees the per-process copies again.
        String file = Environment.getJniLibraryFileName("rocksdbjni");
        URL resource = RocksDB.class.getClassLoader().getResource(entry);
        if (resource == null) {
            throw new IOException("no " + entry + " in RocksDB's jar for this platform");
        }
        URLConnection connection = resource.openConnection();
        long size = connection.getContentLengthLong();
        if (size <= 0) {
            throw new IOException("unknown size of " + resource);
        }
        Path dir = ownedDirectory(ownedDirectory(tmp.resolve("ringkv-native-" + System.getProperty("user.name")))
                .resolve(digest(resource + "#" + size)));
        Path target = dir.resolve(file);
        if (Files.isRegularFile(target) && Files.size(target) == size) {
            return dir;
        }
        Path partial = Files.createTempFile(dir, file, ".partial");
        try (InputStream in = connection.getInputStream()) {
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            if (Files.size(partial) != size) {
                throw new IOException("extracted " + Files.size(partial) + " bytes of " + file + ", expected " + size);
            }
            try {
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(partial);
        }
        return dir;
    }

    /** {@code dir}, created for the user only, or refused when it exists and others could write to it. */
    private static Path ownedDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another JVM made it meanwhile: checked below like any existing one
            }
        }
        if (Files.isSymbolicLink(dir)) {
            throw new IOException(dir + " is a symbolic link");
        }
        String owner = Files.getOwner(dir).getName();
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir);
        if (!owner.equals(System.getProperty("user.name")) || permissions.contains(PosixFilePermission.GROUP_WRITE)
                || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(dir + " belongs to " + owner + " with permissions "
                    + PosixFilePermissions.toString(permissions) + "; only a directory of this user that others cannot write is used");
        }
        return dir;
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is a required JDK algorithm", e);
        }
    }
}
