package io.sediment.predicate;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * The JSON wire form of predicates.
 *
 * <pre>
 * leaf:     {"method": "equal", "field": "p", "literals": ["a"]}
 * compound: {"method": "and" | "or", "children": [ ... ]}   (at least one child)
 * </pre>
 *
 * <p>Literals are JSON strings, numbers, booleans (or null, only inside {@code in}/{@code notIn})
 * converted to the column type. Strings parse to non-string columns: ISO dates for DATE, ISO times
 * for TIME, {@code 2024-01-01T10:00:00} or {@code 2024-01-01 10:00:00} for TIMESTAMP, a timestamp
 * with offset ({@code ...Z} or {@code ...+02:00}) for TIMESTAMP_LTZ, decimal/integer text for
 * numeric columns, base64 for BINARY/VARBINARY, {@code "true"/"false"} for BOOLEAN. {@code
 * isNull}/{@code isNotNull} take no literals (absent or empty), {@code in}/{@code notIn} at least
 * one, {@code between} two, the others exactly one.
 */
public final class PredicateJson {

  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  private static final Set<String> LEAF_KEYS = Set.of("method", "field", "literals");
  private static final Set<String> COMPOUND_KEYS = Set.of("method", "children");

  private PredicateJson() {}

  /** Methods accepted in the wire form: and, or, then the leaf methods. */
  public static List<String> methods() {
    List<String> all = new ArrayList<>();
    all.add("and");
    all.add("or");
    all.addAll(LeafFunction.jsonNames());
    return all;
  }

  /**
   * Parses the JSON wire form against a row type.
   *
   * @throws IllegalArgumentException for malformed JSON (with Jackson's line/column), unknown
   *     methods, fields or keys, wrong literal counts, or literals that do not fit the column type;
   *     errors inside a compound name the JSON path of the offending object, e.g. {@code
   *     $.children[1]}
   */
  public static Predicate parse(String json, RowType rowType) {
    if (json == null) {
      throw new IllegalArgumentException("Filter JSON is null");
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      String where =
          loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
      throw new IllegalArgumentException(
          "Malformed filter JSON" + where + ": " + e.getOriginalMessage(), e);
    }
    if (root == null || root.isMissingNode()) {
      throw new IllegalArgumentException(
          "Filter JSON is empty; expected an object with a 'method'");
    }
    return parseNode(root, "$", new PredicateBuilder(rowType));
  }

  private static Predicate parseNode(JsonNode node, String path, PredicateBuilder builder) {
    if (!node.isObject()) {
      throw error(path, "expected a JSON object with a 'method', got " + describe(node));
    }
    JsonNode methodNode = node.get("method");
    if (methodNode == null || !methodNode.isTextual()) {
      throw error(
          path,
          (methodNode == null ? "missing key 'method'" : "'method' must be a string")
              + "; allowed methods are "
              + methods());
    }
    String method = methodNode.textValue();
    if (method.equals("and") || method.equals("or")) {
      checkKeys(node, COMPOUND_KEYS, path, "an '" + method + "'");
      JsonNode children = node.get("children");
      if (children == null || !children.isArray() || children.isEmpty()) {
        throw error(
            path,
            "'"
                + method
                + "' needs a non-empty array 'children', got "
                + (children == null ? "none" : describe(children)));
      }
      List<Predicate> parsed = new ArrayList<>();
      for (int i = 0; i < children.size(); i++) {
        parsed.add(parseNode(children.get(i), path + ".children[" + i + "]", builder));
      }
      return new CompoundPredicate(
          method.equals("and") ? CompoundPredicate.Function.AND : CompoundPredicate.Function.OR,
          parsed);
    }
    LeafFunction function =
        LeafFunction.fromJsonName(method)
            .orElseThrow(
                () ->
                    error(
                        path, "Unknown method '" + method + "'; allowed methods are " + methods()));
    checkKeys(node, LEAF_KEYS, path, "a leaf");
    JsonNode fieldNode = node.get("field");
    if (fieldNode == null || !fieldNode.isTextual()) {
      throw error(
          path,
          "method '"
              + method
              + "' needs a string 'field', got "
              + (fieldNode == null ? "none" : describe(fieldNode)));
    }
    JsonNode literalsNode = node.get("literals");
    List<Object> raw = new ArrayList<>();
    if (literalsNode != null && !literalsNode.isNull()) {
      if (!literalsNode.isArray()) {
        throw error(path, "'literals' must be an array, got " + describe(literalsNode));
      }
      for (JsonNode lit : literalsNode) {
        raw.add(lit.isNull() ? null : lit);
      }
    }
    try {
      return builder.leaf(function, fieldNode.textValue(), raw, PredicateJson::convert);
    } catch (IllegalArgumentException e) {
      throw path.equals("$") ? e : error(path, e.getMessage());
    }
  }

  private static Object convert(Object raw, LogicalType type, String field) {
    JsonNode node = (JsonNode) raw;
    if (node.isTextual()) {
      return LiteralParser.parseText(node.textValue(), type, field);
    }
    if (node.isNumber()) {
      return LiteralParser.parseNumber(node.asText(), "number", type, field);
    }
    if (node.isBoolean()) {
      if (type.getTypeRoot() == LogicalTypeRoot.BOOLEAN) {
        return node.booleanValue();
      }
      throw Literals.mismatch(node.asText(), "boolean", field, type, null);
    }
    throw new IllegalArgumentException(
        "Literal "
            + node
            + " for field '"
            + field
            + "' must be a JSON string, number, boolean or null, got "
            + describe(node));
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String path, String what) {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!allowed.contains(name)) {
        List<String> sorted = new ArrayList<>(allowed);
        sorted.sort(null);
        throw error(
            path,
            "Unknown key '" + name + "' in " + what + " filter object; allowed keys are " + sorted);
      }
    }
  }

  private static String describe(JsonNode node) {
    return node.getNodeType().name().toLowerCase() + " " + node;
  }

  private static IllegalArgumentException error(String path, String message) {
    return new IllegalArgumentException(
        (path.equals("$") ? "" : "In filter at " + path + ": ") + message);
  }

  /** The JSON wire form; {@code parse(toJson(p), rowType)} equals {@code p}. */
  public static String toJson(Predicate predicate) {
    try {
      return MAPPER.writeValueAsString(toNode(predicate));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write filter JSON", e);
    }
  }

  private static ObjectNode toNode(Predicate predicate) {
    ObjectNode node = MAPPER.createObjectNode();
    if (predicate instanceof CompoundPredicate) {
      CompoundPredicate c = (CompoundPredicate) predicate;
      node.put("method", c.function().jsonName());
      ArrayNode children = node.putArray("children");
      for (Predicate child : c.children()) {
        children.add(toNode(child));
      }
      return node;
    }
    if (!(predicate instanceof LeafPredicate)) {
      throw new IllegalArgumentException(
          "Unsupported predicate implementation " + predicate.getClass().getName());
    }
    LeafPredicate leaf = (LeafPredicate) predicate;
    node.put("method", leaf.function().jsonName());
    node.put("field", leaf.fieldName());
    if (!leaf.literals().isEmpty()) {
      ArrayNode literals = node.putArray("literals");
      for (Object lit : leaf.literals()) {
        literals.add(literalNode(lit, leaf.type()));
      }
    }
    return node;
  }

  private static JsonNode literalNode(Object lit, LogicalType type) {
    JsonNodeFactory f = MAPPER.getNodeFactory();
    if (lit == null) {
      return f.nullNode();
    }
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return f.booleanNode((Boolean) lit);
      case TINYINT:
      case SMALLINT:
      case INTEGER:
        return f.numberNode(((Number) lit).intValue());
      case BIGINT:
        return f.numberNode((Long) lit);
      case FLOAT:
        {
          float v = (Float) lit;
          return Float.isFinite(v) ? f.numberNode(v) : f.textNode(Float.toString(v));
        }
      case DOUBLE:
        {
          double v = (Double) lit;
          return Double.isFinite(v) ? f.numberNode(v) : f.textNode(Double.toString(v));
        }
      case DECIMAL:
        return f.numberNode(((DecimalData) lit).toBigDecimal());
      case CHAR:
      case VARCHAR:
        return f.textNode(lit.toString());
      default:
        return f.textNode(Literals.toText(lit, type));
    }
  }
}
