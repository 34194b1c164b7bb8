package io.sediment.fs;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one JSON mapper for metadata files (snapshots, schemas): pretty; unknown keys are ignored so
 * newer writers stay readable.
 */
public final class JsonSerde {

  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private JsonSerde() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static String toJson(Object o) {
    try {
      return MAPPER.writeValueAsString(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static <T> T fromJson(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot parse " + type.getSimpleName() + " JSON", e);
    }
  }
}
