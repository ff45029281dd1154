package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksDbNativeLibraryTest {
    @TempDir
    Path tmp;

    @Test
    void extractsOnceIntoADirectoryOnlyTheUserCanWriteAndReusesIt() throws Exception {
        Path dir = RocksDbNativeLibrary.extractOnce(tmp);
        Path library;
        try (var files = Files.list(dir)) {
            library = files.filter(p -> p.getFileName().toString().startsWith("librocksdbjni")).findFirst().orElseThrow();
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)), is("rwx------"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.getParent())), is("rwx------"));
        FileTime written = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(library, written);

        assertThat(RocksDbNativeLibrary.extractOnce(tmp), is(dir));
        assertThat("not written again", Files.getLastModifiedTime(library), is(written));
        try (var files = Files.list(dir)) {
            assertThat("no partial file left", files.count(), is(1L));
        }
    }

    @Test
    void aCopyOfTheWrongSizeIsReplaced() throws Exception {
        Path dir = RocksDbNativeLibrary.extractOnce(tmp);
        Path library;
        try (var files = Files.list(dir)) {
            library = files.findFirst().orElseThrow();
        }
        long size = Files.size(library);
        Files.write(library, new byte[] {1, 2, 3});
        RocksDbNativeLibrary.extractOnce(tmp);
        assertThat(Files.size(library), is(size));
    }

    @Test
    void aDirectoryOthersCanWriteIsNotUsed() throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("ringkv-native-" + System.getProperty("user.name")));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        IOException refused = assertThrows(IOException.class, () -> RocksDbNativeLibrary.extractOnce(tmp));
        assertThat(refused.getMessage(), containsString("others cannot write"));
    }
}
