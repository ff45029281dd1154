package io.ringkv.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HeadersTest {

    @Test
    void fieldsKeepTheirOrderAndCaseAndAreFoundWhateverTheCase() {
        Headers headers = new Headers(1).add("Content-Type", "text/plain").add("X-A", "1").add("x-a", "2");
        assertEquals(3, headers.size());
        assertEquals(List.of("Content-Type", "X-A", "x-a"), headers.names());
        assertEquals("text/plain", headers.value(0));
        assertEquals(Optional.of("1"), headers.first("X-a"));
        assertEquals(List.of("1", "2"), headers.all("x-A"));
        assertEquals(1, headers.indexOf("x-a", 0));
        assertEquals(2, headers.indexOf("x-a", 2));
        assertEquals(-1, headers.indexOf("x-a", 3));
        assertTrue(headers.contains("CONTENT-TYPE"));
        assertFalse(headers.contains("Content-Length"));
        assertEquals(Optional.empty(), headers.first("Content-Length"));
        assertEquals("{content-type: text/plain, x-a: 1, x-a: 2}", headers.toString());
    }

    @Test
    void removeAndSetDropEveryFieldOfTheNameAndKeepTheRestInOrder() {
        Headers headers = Headers.of("a", "1", "B", "2", "b", "3", "c", "4", "A", "5");
        headers.remove("A");
        assertEquals(List.of("B", "b", "c"), headers.names());
        assertEquals(List.of("2", "3"), headers.all("b"));
        headers.set("b", "9");
        assertEquals(List.of("c", "b"), headers.names());
        assertEquals("9", headers.value(1));
        headers.replaceValue(0, "5");
        assertEquals(Optional.of("5"), headers.first("c"));
    }

    @Test
    void aClearedBuilderTakesTheNextMessagesFields() {
        Headers builder = new Headers(2);
        for (int i = 0; i < 40; i++) {
            builder.add("f" + i, "v" + i);
        }
        builder.clear();
        assertEquals(0, builder.size());
        assertEquals(-1, builder.indexOf("f0", 0));
        builder.add("g", "1");
        assertEquals(List.of("g"), builder.names());
        assertEquals("1", builder.value(0));
    }

    @Test
    void indexesOutsideTheFieldsAreRefused() {
        Headers headers = new Headers().add("a", "1");
        assertThrows(IndexOutOfBoundsException.class, () -> headers.name(1));
        assertThrows(IndexOutOfBoundsException.class, () -> headers.value(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> headers.replaceValue(1, "x"));
        assertThrows(IllegalArgumentException.class, () -> new Headers(-1));
    }

    @Test
    void theSharedEmptyInstanceCannotChange() {
        assertEquals(0, Headers.NONE.size());
        assertThrows(UnsupportedOperationException.class, () -> Headers.NONE.add("a", "1"));
        assertThrows(UnsupportedOperationException.class, () -> Headers.NONE.set("a", "1"));
        assertThrows(UnsupportedOperationException.class, () -> Headers.NONE.remove("a"));
        assertThrows(UnsupportedOperationException.class, Headers.NONE::clear);
        assertEquals(0, Headers.NONE.size());
    }

    @Test
    void theNamesViewFollowsChangesAndCannotBeChanged() {
        Headers headers = new Headers().add("a", "1");
        List<String> names = headers.names();
        headers.add("b", "2");
        assertEquals(List.of("a", "b"), new ArrayList<>(names));
        assertThrows(UnsupportedOperationException.class, () -> names.add("c"));
    }
}
