/* tp_template.c - placeholder expansion and the transports' topic rules. */
#include "tp_template.h"

#include <string.h>

gchar *tp_template_expand(const gchar *tmpl, const gchar *camera, const gchar *stream, const gchar *kind,
                          gchar **error)
{
  GString *out = g_string_new(NULL);
  for (const gchar *p = tmpl; *p; p++) {
    if (*p == '}') {
      *error = g_strdup_printf("'}' without '{' in template '%s'", tmpl);
      goto fail;
    }
    if (*p != '{') {
      g_string_append_c(out, *p);
      continue;
    }
    const gchar *end = strchr(p, '}');
    if (!end) {
      *error = g_strdup_printf("'{' without '}' in template '%s'", tmpl);
      goto fail;
    }
    gchar *name = g_strndup(p + 1, (gsize)(end - p - 1));
    const gchar *value = g_str_equal(name, "camera") ? camera
                         : g_str_equal(name, "stream") ? stream
                         : g_str_equal(name, "kind") ? kind
                                                       : NULL;
    if (!value) {
      *error = g_strdup_printf("unknown placeholder {%s} in template '%s' (known: {camera}, {stream}, {kind})",
                               name, tmpl);
      g_free(name);
      goto fail;
    }
    g_free(name);
    g_string_append(out, value);
    p = end;
  }
  return g_string_free(out, FALSE);
fail:
  g_string_free(out, TRUE);
  return NULL;
}

gchar *tp_topic_check_mqtt(const gchar *topic)
{
  gsize len = strlen(topic);
  if (len == 0) return g_strdup("the MQTT topic is empty");
  if (len > 65535) return g_strdup_printf("the MQTT topic is %zu bytes long (at most 65535)", len);
  if (strpbrk(topic, "+#"))
    return g_strdup_printf("the MQTT topic '%s' has a wildcard (+ or #): a camera or stream name with one?", topic);
  if (!g_utf8_validate(topic, -1, NULL)) return g_strdup_printf("the MQTT topic '%s' is not UTF-8", topic);
  return NULL;
}

gchar *tp_topic_check_kafka(const gchar *topic)
{
  gsize len = strlen(topic);
  if (len == 0 || len > 249) return g_strdup_printf("the Kafka topic '%s' must be 1 to 249 characters", topic);
  if (g_str_equal(topic, ".") || g_str_equal(topic, ".."))
    return g_strdup_printf("'%s' is not a Kafka topic name", topic);
  for (const gchar *p = topic; *p; p++)
    if (!g_ascii_isalnum(*p) && *p != '.' && *p != '_' && *p != '-')
      return g_strdup_printf("the Kafka topic '%s' may hold only letters, digits, '.', '_' and '-'", topic);
  return NULL;
}
