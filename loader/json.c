// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, for -j and -p: a writer that places the commas, the colons
 * and, when pretty, the newlines and indentation itself, so that commands
 * only say what they print.  A command's document is buffered and handed
 * to the output by json_commit() when the command succeeds; a command that
 * fails midway leaves nothing on stdout, only its error on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loader.h"

#define JSON_MAX_DEPTH	16
#define JSON_INDENT	2

static struct {
	bool on, pretty;
	FILE *out;		/* where committed documents go */
	FILE *doc;		/* the document being written, in memory */
	char *buf;
	size_t len;
	int depth;
	int count[JSON_MAX_DEPTH];	/* members or elements so far, per level */
	bool after_key;
} w;

void json_init(FILE *out, bool pretty)
{
	w.on = true;
	w.pretty = pretty;
	w.out = out;
}

bool json_on(void)
{
	return w.on;
}

/*
 * @s as a JSON string.  Names are ASCII, but a governor's exit reason is
 * whatever bytes its program passed: control characters and every byte
 * outside ASCII are escaped (\u00XX, the byte's value), so that the output
 * stays valid JSON whatever the bytes.
 */
static void escaped(FILE *f, const char *s)
{
	const unsigned char *c;

	fputc('"', f);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < ' ' || *c >= 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void newline_indent(int depth)
{
	fprintf(w.doc, "\n%*s", depth * JSON_INDENT, "");
}

/* What goes before a value or a key: a comma, a newline, the indentation. */
static void separate(void)
{
	if (!w.doc) {
		w.doc = open_memstream(&w.buf, &w.len);
		if (!w.doc)
			exit(fail(EXIT_FAIL, "out of memory"));
	}
	if (w.after_key) {
		w.after_key = false;
		return;
	}
	if (!w.depth)
		return;
	if (w.count[w.depth - 1]++)
		fputc(',', w.doc);
	if (w.pretty)
		newline_indent(w.depth);
}

/* A document ends with its top-level value, and a newline. */
static void value_done(void)
{
	if (!w.depth)
		fputc('\n', w.doc);
}

static void open_level(char c)
{
	separate();
	fputc(c, w.doc);
	if (w.depth < JSON_MAX_DEPTH)
		w.count[w.depth++] = 0;
}

static void close_level(char c)
{
	if (w.depth && w.pretty && w.count[w.depth - 1])
		newline_indent(w.depth - 1);
	fputc(c, w.doc);
	if (w.depth)
		w.depth--;
	value_done();
}

void json_object_start(void)
{
	open_level('{');
}

void json_object_end(void)
{
	close_level('}');
}

void json_array_start(void)
{
	open_level('[');
}

void json_array_end(void)
{
	close_level(']');
}

void json_key(const char *key)
{
	separate();
	escaped(w.doc, key);
	fputs(w.pretty ? ": " : ":", w.doc);
	w.after_key = true;
}

void json_str(const char *s)
{
	separate();
	escaped(w.doc, s);
	value_done();
}

void json_int(long long v)
{
	separate();
	fprintf(w.doc, "%lld", v);
	value_done();
}

void json_uint(unsigned long long v)
{
	separate();
	fprintf(w.doc, "%llu", v);
	value_done();
}

/* @v with @decimals digits after the point; never NaN here (ratios of counts). */
void json_float(double v, int decimals)
{
	separate();
	fprintf(w.doc, "%.*f", decimals, v);
	value_done();
}

void json_bool(bool v)
{
	separate();
	fputs(v ? "true" : "false", w.doc);
	value_done();
}

void json_null(void)
{
	separate();
	fputs("null", w.doc);
	value_done();
}

void json_field_str(const char *key, const char *s)
{
	json_key(key);
	json_str(s);
}

void json_field_int(const char *key, long long v)
{
	json_key(key);
	json_int(v);
}

void json_field_uint(const char *key, unsigned long long v)
{
	json_key(key);
	json_uint(v);
}

void json_field_bool(const char *key, bool v)
{
	json_key(key);
	json_bool(v);
}

/*
 * Hands the documents written since the last commit to the output when
 * @keep, drops them otherwise (a command that failed midway), and starts
 * afresh either way.
 */
void json_commit(bool keep)
{
	if (!w.doc)
		return;
	fclose(w.doc);
	if (keep && w.out && w.len) {
		fwrite(w.buf, 1, w.len, w.out);
		fflush(w.out);
	}
	free(w.buf);
	w.doc = NULL;
	w.buf = NULL;
	w.len = 0;
	w.depth = 0;
	w.after_key = false;
}
