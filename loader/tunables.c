// SPDX-License-Identifier: GPL-2.0
/*
 * Tunables by field name.  A governor's "tunables" map has a struct value
 * whose BTF the loader reads for the fields, and whose decl tags
 * (include/cpufreq_bpf.h) for their ranges, units and formats, so that any
 * governor works without changes here.  0 always means "the default", so it
 * is accepted whatever the range.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "loader.h"

#define FREQ_LIST_SEPARATORS	" \t:,"

/* The integer type behind @type_id, or NULL. */
static const struct btf_type *int_type(const struct btf *btf, __u32 type_id)
{
	int id = btf__resolve_type(btf, type_id);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(btf, id);

	if (!t)
		return NULL;
	if (btf_is_enum(t) || btf_is_enum64(t))
		return t;
	return btf_is_int(t) ? t : NULL;
}

/* Fills @f from a struct member; false for what cannot be tuned. */
static bool field_from_member(const struct btf *btf, const struct btf_type *st, int i,
			      struct field *f)
{
	const struct btf_member *m = btf_members(st) + i;
	const struct btf_type *t, *elem;
	__u32 bit_off = btf_member_bit_offset(st, i);
	int id;

	if (btf_member_bitfield_size(st, i) || bit_off % 8)
		return false;
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", btf__name_by_offset(btf, m->name_off));
	f->offset = bit_off / 8;
	f->nelems = 1;

	id = btf__resolve_type(btf, m->type);
	t = id < 0 ? NULL : btf__type_by_id(btf, id);
	if (t && btf_is_array(t)) {
		f->nelems = btf_array(t)->nelems;
		f->format = FIELD_ARRAY;
		elem = int_type(btf, btf_array(t)->type);
	} else {
		elem = int_type(btf, m->type);
	}
	if (!elem || !f->nelems || !f->name[0])
		return false;
	f->elem_size = elem->size;
	f->is_signed = btf_is_int(elem) ? btf_int_encoding(elem) & BTF_INT_SIGNED
					 : btf_kflag(elem);
	return f->elem_size == 1 || f->elem_size == 2 || f->elem_size == 4 ||
	       f->elem_size == 8;
}

/*
 * Applies one decl tag: "range:MIN:MAX", "min_ticks:N", "unit:U",
 * "format:freq_list", "default:N" or "default_is:TEXT".  A "default:" that is not a plain
 * number (a macro expanding to an expression) is shown as the text it is.
 */
static void field_apply_tag(struct field *f, const char *tag)
{
	char *end;

	if (!strncmp(tag, "default:", 8)) {
		f->default_value = strtoll(tag + 8, &end, 0);
		f->has_default = tag[8] && !*end;
		snprintf(f->default_text, sizeof(f->default_text), "%s",
			 f->has_default ? "" : tag + 8);
	} else if (!strncmp(tag, "default_is:", 11)) {
		f->has_default = false;
		snprintf(f->default_text, sizeof(f->default_text), "%s", tag + 11);
	} else if (!strncmp(tag, "range:", 6)) {
		f->min = strtoll(tag + 6, &end, 0);
		if (*end == ':') {
			f->max = strtoll(end + 1, &end, 0);
			f->has_range = !*end;
		}
	} else if (!strncmp(tag, "min_ticks:", 10)) {
		f->min_ticks = strtoul(tag + 10, NULL, 0);
	} else if (!strncmp(tag, "unit:", 5)) {
		snprintf(f->unit, sizeof(f->unit), "%s", tag + 5);
	} else if (!strcmp(tag, "format:freq_list") && f->format == FIELD_ARRAY) {
		f->format = FIELD_FREQ_LIST;
	}
}

/* Decl tags on member @member of struct @struct_id. */
static void fields_apply_tags(const struct btf *btf, __u32 struct_id, int member,
			      struct field *f)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_decl_tag(t) && t->type == struct_id &&
		    btf_decl_tag(t)->component_idx == member)
			field_apply_tag(f, btf__name_by_offset(btf, t->name_off));
	}
	/* The range's minimum is for HZ=250: the running kernel's is exact. */
	if (f->has_range && f->min_ticks && kernel_tick_us())
		f->min = (__s64)f->min_ticks * kernel_tick_us();
}

int layout_from_btf(const struct btf *btf, __u32 type_id, struct layout *layout)
{
	int id = btf__resolve_type(btf, type_id), i;
	const struct btf_type *st = id < 0 ? NULL : btf__type_by_id(btf, id);

	memset(layout, 0, sizeof(*layout));
	if (!st || !btf_is_struct(st))
		return -EINVAL;
	snprintf(layout->type_name, sizeof(layout->type_name), "%s",
		 btf__name_by_offset(btf, st->name_off));
	layout->value_size = st->size;
	layout->fields = calloc(btf_vlen(st), sizeof(*layout->fields));
	if (!layout->fields && btf_vlen(st))
		return -ENOMEM;
	for (i = 0; i < btf_vlen(st); i++) {
		struct field *f = &layout->fields[layout->nr_fields];

		if (!field_from_member(btf, st, i, f))
			continue;
		fields_apply_tags(btf, id, i, f);
		layout->nr_fields++;
	}
	return 0;
}

void layout_free(struct layout *layout)
{
	free(layout->fields);
	layout->fields = NULL;
	layout->nr_fields = 0;
}

const struct field *layout_field(const struct layout *layout, const char *name)
{
	int i;

	for (i = 0; i < layout->nr_fields; i++)
		if (!strcmp(layout->fields[i].name, name))
			return &layout->fields[i];
	return NULL;
}

/* The largest value an element of @f holds, and the smallest. */
static __s64 elem_max(const struct field *f)
{
	if (f->elem_size == 8)
		return f->is_signed ? INT64_MAX : -1;	/* -1: no limit (u64) */
	return f->is_signed ? (1LL << (8 * f->elem_size - 1)) - 1 : (1LL << (8 * f->elem_size)) - 1;
}

static __s64 elem_min(const struct field *f)
{
	if (!f->is_signed)
		return 0;
	return f->elem_size == 8 ? INT64_MIN : -(1LL << (8 * f->elem_size - 1));
}

/* One element: a number that fits the field and is 0 or within its range. */
static int elem_parse(const struct field *f, const char *s, __s64 *out)
{
	bool neg = *s == '-';
	__u64 v;

	if (parse_u64(neg ? s + 1 : s, &v) || (neg && !f->is_signed))
		return -EINVAL;
	if (neg) {
		if (v > (__u64)INT64_MAX + 1 || -(__s64)(v - 1) - 1 < elem_min(f))
			return -ERANGE;
		*out = -(__s64)(v - 1) - 1;
	} else {
		if (elem_max(f) != -1 && v > (__u64)elem_max(f))
			return -ERANGE;
		*out = v;
	}
	if (*out && f->has_range) {
		/* Unsigned ranges above INT64_MAX do not occur in a u32 or smaller. */
		if (*out < f->min || *out > f->max)
			return -ERANGE;
	}
	return 0;
}

static void elem_store(const struct field *f, void *value, __u32 i, __s64 v)
{
	void *p = (char *)value + f->offset + i * f->elem_size;
	__u8 b = v;
	__u16 h = v;
	__u32 w = v;
	__u64 d = v;

	switch (f->elem_size) {
	case 1: memcpy(p, &b, 1); break;
	case 2: memcpy(p, &h, 2); break;
	case 4: memcpy(p, &w, 4); break;
	default: memcpy(p, &d, 8); break;
	}
}

static __s64 elem_load(const struct field *f, const void *value, __u32 i)
{
	const void *p = (const char *)value + f->offset + i * f->elem_size;
	__u8 b;
	__u16 h;
	__u32 w;
	__u64 d;

	switch (f->elem_size) {
	case 1: memcpy(&b, p, 1); return f->is_signed ? (__s64)(__s8)b : (__s64)b;
	case 2: memcpy(&h, p, 2); return f->is_signed ? (__s64)(__s16)h : (__s64)h;
	case 4: memcpy(&w, p, 4); return f->is_signed ? (__s64)(__s32)w : (__s64)w;
	default: memcpy(&d, p, 8); return d;
	}
}

/* Splits @text at @seps into @vals, parsed; how many, or a negative errno. */
static int elems_parse(const struct field *f, const char *text, const char *seps,
		       __s64 *vals, __u32 max)
{
	char buf[1024], *tok, *save;
	__u32 n = 0;
	int err;

	if (strlen(text) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, text);
	for (tok = strtok_r(buf, seps, &save); tok; tok = strtok_r(NULL, seps, &save)) {
		if (n == max)
			return -E2BIG;
		err = elem_parse(f, tok, &vals[n++]);
		if (err)
			return err;
	}
	return n ? (int)n : -EINVAL;
}

/*
 * interactive's "value freq:value freq:value ..." list: the first value,
 * then pairs of a frequency and the value from it up, frequencies rising;
 * stored flat and 0-terminated, so it fills at most nelems - 1 slots.
 * Frequencies are kHz and only need to be positive and rising.
 */
static int freq_list_parse(const struct field *f, const char *text, __s64 *vals)
{
	struct field freq = *f;
	char buf[1024], *tok, *save;
	__u32 n = 0;
	int err;

	freq.has_range = false;
	if (!strcmp(text, "0"))
		return 0;
	if (strlen(text) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, text);
	for (tok = strtok_r(buf, FREQ_LIST_SEPARATORS, &save); tok;
	     tok = strtok_r(NULL, FREQ_LIST_SEPARATORS, &save)) {
		if (n == f->nelems - 1)
			return -E2BIG;
		err = elem_parse(n % 2 ? &freq : f, tok, &vals[n]);
		if (err)
			return err;
		/* A 0 would end the list early; frequencies must rise. */
		if (!vals[n] || (n % 2 && n > 1 && vals[n] <= vals[n - 2]))
			return -EINVAL;
		n++;
	}
	if (!n || n % 2 == 0)
		return -EINVAL;	/* empty, or a frequency without its value */
	return n;
}

/*
 * Parses @text for field @f into @value (the whole struct); "default" is 0.
 * -EINVAL malformed, -ERANGE out of range or too large, -E2BIG too many,
 * -ENOMEM.  The values go through the heap: nelems comes from the object's
 * BTF, and a crafted one may hold millions.
 */
int field_parse(const struct field *f, const char *text, void *value)
{
	__s64 *vals = calloc(f->nelems, sizeof(*vals));
	__u32 i;
	int n;

	if (!vals)
		return -ENOMEM;
	if (!strcmp(text, "default"))
		n = 0;
	else if (f->format == FIELD_FREQ_LIST)
		n = freq_list_parse(f, text, vals);
	else
		n = elems_parse(f, text, ",", vals, f->nelems);
	for (i = 0; n >= 0 && i < f->nelems; i++)
		elem_store(f, value, i, vals[i]);
	free(vals);
	return n < 0 ? n : 0;
}

static int append(char *buf, size_t len, size_t *pos, const char *fmt, __s64 v, bool is_signed)
{
	int n = is_signed ? snprintf(buf + *pos, len - *pos, fmt, (long long)v)
			  : snprintf(buf + *pos, len - *pos, fmt, (unsigned long long)v);

	if (n < 0 || (size_t)n >= len - *pos)
		return -ENOSPC;
	*pos += n;
	return 0;
}

/* Slots a freq list uses before its terminator: 0 when it is unset. */
static __u32 freq_list_len(const struct field *f, const void *value)
{
	__u32 n;

	if (!elem_load(f, value, 0))
		return 0;
	for (n = 1; n + 1 < f->nelems && elem_load(f, value, n); n += 2)
		;
	return n;
}

/* The text field_parse() reads back into the same value. */
int field_format(const struct field *f, const void *value, char *buf, size_t len)
{
	const char *lfmt = f->is_signed ? "%lld" : "%llu";
	size_t pos = 0;
	__u32 i, last = 0;
	int err = 0;

	buf[0] = '\0';
	if (f->format == FIELD_FREQ_LIST) {
		last = freq_list_len(f, value);
		err = append(buf, len, &pos, lfmt, elem_load(f, value, 0), f->is_signed);
		for (i = 1; !err && i < last; i += 2)
			err = append(buf, len, &pos, " %llu", elem_load(f, value, i), false) ?:
			      append(buf, len, &pos, f->is_signed ? ":%lld" : ":%llu",
				     elem_load(f, value, i + 1), f->is_signed);
		return err;
	}
	for (i = 0; i < f->nelems; i++)
		if (elem_load(f, value, i))
			last = i;
	for (i = 0; !err && i <= last; i++)
		err = append(buf, len, &pos, i ? "," : "", 0, false) ?:
		      append(buf, len, &pos, lfmt, elem_load(f, value, i), f->is_signed);
	return err;
}

/* "field=value" into @value; -ENOENT for an unknown field. */
int parse_assignment(const struct layout *layout, const char *arg, void *value)
{
	const char *eq = strchr(arg, '=');
	const struct field *f;
	char name[64];

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name))
		return -EINVAL;
	memcpy(name, arg, eq - arg);
	name[eq - arg] = '\0';
	f = layout_field(layout, name);
	if (!f)
		return -ENOENT;
	return field_parse(f, eq + 1, value);
}

/*
 * Copies fields from an old value to a new one by name; fields whose shape
 * changed, or that are new, keep what @new_value has (the default, 0).
 */
void layout_carry(const struct layout *from, const void *old_value,
		  const struct layout *to, void *new_value)
{
	int i;
	__u32 j;

	for (i = 0; i < to->nr_fields; i++) {
		const struct field *nf = &to->fields[i];
		const struct field *of = layout_field(from, nf->name);

		if (!of || of->elem_size != nf->elem_size || of->format != nf->format ||
		    of->is_signed != nf->is_signed)
			continue;
		for (j = 0; j < nf->nelems && j < of->nelems; j++)
			elem_store(nf, new_value, j, elem_load(of, old_value, j));
	}
}

/*
 * @f's value in @value as JSON: a number, an array of numbers (every
 * element), or for a freq list the text tune takes ("85 1500000:95").
 */
void field_json_value(const struct field *f, const void *value)
{
	char buf[1024];
	__u32 i;

	if (f->format == FIELD_FREQ_LIST) {
		json_str(field_format(f, value, buf, sizeof(buf)) ? "?" : buf);
		return;
	}
	if (f->format == FIELD_ARRAY)
		json_array_start();
	for (i = 0; i < f->nelems; i++) {
		if (f->is_signed)
			json_int(elem_load(f, value, i));
		else
			json_uint(elem_load(f, value, i));
	}
	if (f->format == FIELD_ARRAY)
		json_array_end();
}

/*
 * @f's default from its tag into @buf: the number with its unit, or the
 * text; -ENOENT when the object does not say (0 is then all it tells).
 */
int field_default_format(const struct field *f, char *buf, size_t len)
{
	if (f->has_default)
		snprintf(buf, len, "%lld%s%s", (long long)f->default_value,
			 f->unit[0] ? " " : "", f->unit);
	else if (f->default_text[0])
		snprintf(buf, len, "%s", f->default_text);
	else
		return -ENOENT;
	return 0;
}

/*
 * @f's default as JSON: the tag's number, or its text as a string; without
 * a tag, what @value (an entry after a load) holds.
 */
static void field_json_default(const struct field *f, const void *value)
{
	if (f->has_default)
		json_int(f->default_value);
	else if (f->default_text[0])
		json_str(f->default_text);
	else
		field_json_value(f, value);
}

/*
 * "NAME": {"<@what>": value, "unit": "us"|null, "range": {"min", "max"}|null};
 * info's "default" is the object's default where it gives one.
 */
void field_json(const struct field *f, const void *value, const char *what)
{
	json_key(f->name);
	json_object_start();
	json_key(what);
	if (!strcmp(what, "default"))
		field_json_default(f, value);
	else
		field_json_value(f, value);
	json_key("unit");
	if (f->unit[0])
		json_str(f->unit);
	else
		json_null();
	json_key("range");
	if (f->has_range) {
		json_object_start();
		json_field_int("min", f->min);
		json_field_int("max", f->max);
		json_object_end();
	} else {
		json_null();
	}
	json_object_end();
}
