package io.sediment.fs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

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

  /**
   * Parses a JSON object that must have every one of {@code required} fields (not null). A missing
   * field would otherwise read as 0 or null and surface later as a wrong answer or a
   * NullPointerException.
   *
   * @throws IllegalArgumentException saying what is wrong (not JSON, missing fields, a bad value);
   *     the caller names the file
   */
  public static <T> T parseObject(String json, Class<T> type, List<String> required) {
    JsonNode tree;
    try {
      tree = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON (" + e.getOriginalMessage() + ")", e);
    }
    if (tree == null || !tree.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    List<String> missing = new ArrayList<>();
    for (String field : required) {
      if (!tree.hasNonNull(field)) {
        missing.add(field);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          (missing.size() == 1 ? "missing field " : "missing fields ")
              + String.join(", ", missing));
    }
    try {
      return MAPPER.treeToValue(tree, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("invalid value (" + e.getOriginalMessage() + ")", e);
    }
  }
}
