/* tp_template.h - topic and key templates: "cameras/{camera}/objects".
 *
 * Placeholders: {camera} (camera-id), {stream} (stream-name), {kind} ("objects" for frame
 * messages, "events" for track events). Anything else in braces is an error naming it.
 */
#ifndef TP_TEMPLATE_H
#define TP_TEMPLATE_H

#include <glib.h>

/* The expanded text, or NULL with *error set. */
gchar *tp_template_expand(const gchar *tmpl, const gchar *camera, const gchar *stream, const gchar *kind,
                          gchar **error);
/* NULL when `topic` is a valid topic to publish to for the transport, else why not. */
gchar *tp_topic_check_mqtt(const gchar *topic);
gchar *tp_topic_check_kafka(const gchar *topic);

#endif
