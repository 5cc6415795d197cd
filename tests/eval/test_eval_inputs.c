/* test_eval_inputs.c - the evaluation tools' input readers on hostile and odd files: COCO
 * JSON (evaluation/coco_json.c), classification ground truth and label files
 * (evaluation/class_truth.c), and pictures (tools/image_file.c). Each bad file must give
 * a message naming the problem, never a crash (the suite also runs under ASan+UBSan).
 *
 * usage: test_eval_inputs PICTURES_DIR (tests/data/pictures: rocket.jpg, astronaut.png,
 * camera.png)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* after stdio.h: jpeglib.h uses FILE */
#include <jpeglib.h>

#include "evaluation/class_truth.h"
#include "evaluation/coco_json.h"
#include "tests/check.h"
#include "tools/image_file.h"

static char dir[] = "/tmp/test_eval_inputs.XXXXXX";

static const char *write_file(const char *name, const void *data, size_t n)
{
  static char path[4][4096];
  static int k;
  char *p = path[k++ % 4];
  snprintf(p, 4096, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (f) {
    fwrite(data, 1, n, f);
    fclose(f);
  }
  return p;
}

static const char *write_text(const char *name, const char *text)
{
  return write_file(name, text, strlen(text));
}

/* The instances file must fail with a message containing `want`. */
static void bad_instances(const char *what, const char *text, const char *want)
{
  coco_dataset ds;
  char err[600] = "";
  int rc = coco_dataset_load(write_text("bad.json", text), &ds, err, sizeof err);
  CHECK(rc != 0 && strstr(err, want), "%s: rc %d, message '%s', want '%s'", what, rc, err, want);
  if (rc == 0) coco_dataset_free(&ds);
}

#define HEAD "{\"images\": [{\"id\": 1, \"file_name\": \"a.jpg\"}], \"categories\": [{\"id\": 1, \"name\": \"c\"}], "

static void coco_files(void)
{
  coco_dataset ds;
  char err[600] = "";
  CHECK(coco_dataset_load("/nonexistent/instances.json", &ds, err, sizeof err) != 0 &&
            strstr(err, "does not exist"), "missing file: '%s'", err);
  bad_instances("empty file", "", "not valid JSON");
  bad_instances("not JSON", "hello", "not valid JSON");
  bad_instances("cut short", HEAD "\"annotations\": [{\"id\": 1, ", "not valid JSON");
  bad_instances("text after the value", HEAD "\"annotations\": []} {}", "not valid JSON at byte");
  bad_instances("NaN (json-c reads it even when strict)", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [NaN, 0, 1, 1]}]}", "annotations[0].bbox is not a finite number");
  bad_instances("trailing comma (strict JSON)", HEAD "\"annotations\": [],}", "not valid JSON");
  char deep[4000];
  memset(deep, '[', sizeof deep - 1);
  deep[sizeof deep - 1] = '\0';
  bad_instances("nesting 4000 deep", deep, "not valid JSON");
  bad_instances("an array at the top", "[]", "no \"images\" array");
  bad_instances("no annotations", "{\"images\": [], \"categories\": []}", "no \"annotations\" array");
  bad_instances("image without id", "{\"images\": [{\"file_name\": \"a.jpg\"}], \"categories\": [], \"annotations\": []}",
                "images[0].id is missing");
  bad_instances("id as a string", "{\"images\": [{\"id\": \"1\", \"file_name\": \"a.jpg\"}], \"categories\": [], "
                "\"annotations\": []}", "images[0].id is not a whole number");
  bad_instances("negative width", "{\"images\": [{\"id\": 1, \"file_name\": \"a.jpg\", \"width\": -5}], "
                "\"categories\": [], \"annotations\": []}", "images[0].width is out of range");
  bad_instances("image not an object", "{\"images\": [3], \"categories\": [], \"annotations\": []}",
                "images[0] is not an object");
  bad_instances("repeated image id", "{\"images\": [{\"id\": 4, \"file_name\": \"a\"}, {\"id\": 4, \"file_name\": \"b\"}], "
                "\"categories\": [], \"annotations\": []}", "images id 4 appears more than once");
  bad_instances("category without name", "{\"images\": [], \"categories\": [{\"id\": 1}], \"annotations\": []}",
                "categories[0].name is missing");
  bad_instances("bbox of 3", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, 0, 1]}]}", "annotations[0].bbox is not an array of 4");
  bad_instances("bbox with a string", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, \"0\", 1, 1]}]}", "annotations[0].bbox is not a number");
  bad_instances("huge number", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, 0, 1e999, 1]}]}", "annotations[0].bbox");
  bad_instances("rbox of 4", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, 0, 1, 1], \"rbox\": [0, 0, 1, 1]}]}", "annotations[0].rbox is not an array of 5");
  bad_instances("rbox with NaN", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, 0, 1, 1], \"rbox\": [0, 0, 1, 1, NaN]}]}", "annotations[0].rbox is not a finite number");
  bad_instances("iscrowd 2", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, 0, 1, 1], \"iscrowd\": 2}]}", "annotations[0].iscrowd is not 0 or 1");
  bad_instances("repeated annotation id", HEAD "\"annotations\": [{\"id\": 9, \"image_id\": 1, \"category_id\": 1, "
                "\"bbox\": [0, 0, 1, 1]}, {\"id\": 9, \"image_id\": 1, \"category_id\": 1, \"bbox\": [0, 0, 1, 1]}]}",
                "annotations id 9 appears more than once");

  /* a good file: no area means the box's, booleans allowed for iscrowd */
  const char *good = write_text("good.json", HEAD "\"annotations\": [{\"id\": 1, \"image_id\": 1, \"category_id\": 1, "
                                "\"bbox\": [1, 2, 3, 4], \"iscrowd\": true, \"segmentation\": [[1, 2, 3]], "
                                "\"rbox\": [2.5, 4, 3, 4, -0.5]}], \"licenses\": []}");
  int rc = coco_dataset_load(good, &ds, err, sizeof err);
  CHECK(rc == 0, "good file: %s", err);
  if (rc == 0) {
    CHECK(ds.n_images == 1 && ds.n_categories == 1 && ds.n_annotations == 1, "counts %zu %zu %zu", ds.n_images,
          ds.n_categories, ds.n_annotations);
    CHECK(ds.annotations[0].area == 12 && ds.annotations[0].iscrowd && ds.images[0].width == 0,
          "area %g crowd %d width %d", ds.annotations[0].area, ds.annotations[0].iscrowd, ds.images[0].width);
    CHECK(ds.annotations[0].oriented && ds.annotations[0].rbox[0] == 2.5 && ds.annotations[0].rbox[4] == -0.5,
          "rbox not read");
    coco_dataset_free(&ds);
  }

  coco_det *dt;
  size_t n;
  rc = coco_results_load(write_text("r.json", "{}"), &dt, &n, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "JSON array of detections"), "results not an array: '%s'", err);
  rc = coco_results_load(write_text("r.json", "[{\"image_id\": 1, \"category_id\": 1, \"bbox\": [0, 0, 1, 1]}]"),
                         &dt, &n, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "results[0].score is missing"), "result without score: '%s'", err);
  const coco_det d = { 3, 4, { 0.1, 1e-300, 12345.678901234567, 7 }, 0.30000000000000004 };
  CHECK(coco_results_write(write_text("w.json", ""), &d, 1, err, sizeof err) == 0, "write: %s", err);
  snprintf(err, sizeof err, "%s/w.json", dir);
  char path[4096];
  snprintf(path, sizeof path, "%s", err);
  rc = coco_results_load(path, &dt, &n, err, sizeof err);
  CHECK(rc == 0 && n == 1 && !memcmp(&dt[0], &d, sizeof d), "results round trip: %s", rc ? err : "values differ");
  if (rc == 0) free(dt);
  CHECK(coco_results_write("/nonexistent/dir/r.json", &d, 1, err, sizeof err) != 0 && strstr(err, "/nonexistent"),
        "unwritable results: '%s'", err);
  /* a link under the results' name is replaced, never written through; a FIFO (a
   * blocking open would hang the tool) is refused and named */
  char target[4096], link_path[4096], fifo[4096];
  snprintf(target, sizeof target, "%s", write_text("target.txt", "not results"));
  snprintf(link_path, sizeof link_path, "%s/link.json", dir);
  snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
  CHECK(symlink(target, link_path) == 0 && mkfifo(fifo, 0600) == 0, "link and FIFO made");
  CHECK(coco_results_write(link_path, &d, 1, err, sizeof err) == 0, "write through a link's name: %s", err);
  char back[64] = "";
  FILE *f = fopen(target, "r");
  if (f && !fgets(back, sizeof back, f)) back[0] = '\0';
  if (f) fclose(f);
  struct stat st;
  CHECK(!strcmp(back, "not results") && lstat(link_path, &st) == 0 && S_ISREG(st.st_mode),
        "the link's target unchanged ('%s'), the name now a file of results", back);
  CHECK(coco_results_write(fifo, &d, 1, err, sizeof err) != 0 && strstr(err, fifo) && strstr(err, "FIFO"),
        "FIFO as the results file: '%s'", err);
  CHECK(coco_results_load(fifo, &dt, &n, err, sizeof err) != 0 && strstr(err, "FIFO"), "FIFO as results to read: '%s'",
        err);
  unlink(link_path);
  unlink(fifo);
  unlink(target);
}

static void truth_files(void)
{
  char err[600] = "";
  char imgs[4096];
  snprintf(imgs, sizeof imgs, "%s/imgs", dir);
  mkdir(imgs, 0777);
  static const char *names[] = { "b.png", "a.JPG", "c.jpeg", "notes.txt" };
  for (int i = 0; i < 4; i++) {
    char p[4200];
    snprintf(p, sizeof p, "imgs/%s", names[i]);
    write_text(p, "x");
  }
  text_lines labels;
  CHECK(text_lines_from_text("background\ncrane\ncat\r\ncrane  \n", &labels, err, sizeof err) == 0, "%s", err);
  CHECK(labels.n == 4 && !strcmp(labels.line[2], "cat") && !strcmp(labels.line[3], "crane"), "label lines %zu", labels.n);

  class_truth t;
  const char *ilsvrc = write_text("truth.txt", "cat\ncrane\n2\n\n");
  CHECK(class_truth_load(ilsvrc, imgs, &t, err, sizeof err) == 0, "ILSVRC truth: %s", err);
  /* sorted by bytes: a.JPG, b.png, c.jpeg; notes.txt is no picture */
  CHECK(t.n == 3 && !strcmp(t.e[0].image, "a.JPG") && !strcmp(t.e[2].image, "c.jpeg") &&
            !strcmp(t.e[1].label, "crane"), "ILSVRC order");
  CHECK(class_truth_resolve(&t, &labels, 4, err, sizeof err) == 0, "resolve: %s", err);
  /* "crane" is two classes (1 and 3), as TFLite compares label text; "2" is an index */
  CHECK(t.e[1].n_classes == 2 && t.e[2].n_classes == 1 && t.e[2].classes[0] == 2, "crane %d, index %d",
        t.e[1].n_classes, t.e[2].n_classes);
  const int top[] = { 0, 3, 2 };
  CHECK(class_truth_rank(&t.e[1], top, 3) == 1 && class_truth_rank(&t.e[0], top, 3) == 2 &&
            class_truth_rank(&t.e[0], top, 2) == -1, "ranks");
  class_truth_free(&t);

  CHECK(class_truth_load(write_text("short.txt", "cat\n"), imgs, &t, err, sizeof err) != 0 &&
            strstr(err, "has 1 labels but") && strstr(err, "has 3 images"), "count mismatch: '%s'", err);
  CHECK(class_truth_load(write_text("t.txt", "cat\n\ncat\n"), imgs, &t, err, sizeof err) != 0 &&
            strstr(err, ":2: empty label"), "empty label: '%s'", err);
  CHECK(class_truth_load(ilsvrc, "/nonexistent", &t, err, sizeof err) != 0 && strstr(err, "/nonexistent"),
        "missing folder: '%s'", err);
  CHECK(class_truth_load(write_text("t.csv", "image,label\na.JPG,cat\nb.png\n"), imgs, &t, err, sizeof err) != 0 &&
            strstr(err, "t.csv:3: expected"), "CSV without comma: '%s'", err);
  CHECK(class_truth_load(write_text("t.csv", "../../etc/passwd,cat\n"), imgs, &t, err, sizeof err) != 0 &&
            strstr(err, "must be a name inside"), "CSV escaping the folder: '%s'", err);
  CHECK(class_truth_load(write_file("nul.txt", "cat\0dog\n", 8), imgs, &t, err, sizeof err) != 0 &&
            strstr(err, "NUL byte"), "NUL byte: '%s'", err);
  CHECK(class_truth_load(write_text("t.csv", "b.png,dog, brown\n"), imgs, &t, err, sizeof err) == 0 &&
            t.n == 1 && !strcmp(t.e[0].label, "dog, brown"), "CSV label with a comma: %s", err);
  CHECK(class_truth_resolve(&t, &labels, 4, err, sizeof err) != 0 && strstr(err, "\"dog, brown\" is no model label"),
        "unknown label: '%s'", err);
  class_truth_free(&t);
  CHECK(class_truth_load(write_text("t.csv", "b.png,4\n"), imgs, &t, err, sizeof err) == 0, "%s", err);
  CHECK(class_truth_resolve(&t, NULL, 4, err, sizeof err) != 0 && strstr(err, "class index 0..3"),
        "index out of range: '%s'", err);
  class_truth_free(&t);
  text_lines_free(&labels);
}

static void bad_picture(const char *what, const char *path, const char *want)
{
  int w, h;
  char err[600] = "";
  uint8_t *px = image_file_load_rgb(path, &w, &h, err, sizeof err);
  CHECK(!px && strstr(err, want), "%s: message '%s', want '%s'", what, err, want);
  free(px);
}

/* A CMYK JPEG as Photoshop writes it (Adobe marker, inverted: 255 = no ink). */
static const char *write_cmyk_jpeg(void)
{
  static char path[4096];
  snprintf(path, sizeof path, "%s/cmyk.jpg", dir);
  FILE *f = fopen(path, "wb");
  if (!f) return path;
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr e;
  c.err = jpeg_std_error(&e);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = 16;
  c.image_height = 8;
  c.input_components = 4;
  c.in_color_space = JCS_CMYK;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 100, TRUE);
  jpeg_start_compress(&c, TRUE);
  uint8_t row[16 * 4];
  for (int x = 0; x < 16; x++) row[4 * x] = 255, row[4 * x + 1] = 0, row[4 * x + 2] = 0, row[4 * x + 3] = 255;
  JSAMPROW rows[1] = { row };
  for (int y = 0; y < 8; y++) jpeg_write_scanlines(&c, rows, 1);
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  fclose(f);
  return path;
}

static uint8_t *read_all(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  uint8_t *b = malloc((size_t)len);
  *n = b && fread(b, 1, (size_t)len, f) == (size_t)len ? (size_t)len : 0;
  fclose(f);
  return b;
}

static void pictures(const char *pics)
{
  char p[4096], err[600] = "";
  int w = 0, h = 0;
  snprintf(p, sizeof p, "%s/rocket.jpg", pics);
  uint8_t *px = image_file_load_rgb(p, &w, &h, err, sizeof err);
  CHECK(px && w == 640 && h == 427, "rocket.jpg: %dx%d %s", w, h, err);
  free(px);
  snprintf(p, sizeof p, "%s/camera.png", pics);
  px = image_file_load_rgb(p, &w, &h, err, sizeof err);
  CHECK(px && w == 512 && h == 512, "camera.png: %dx%d %s", w, h, err);
  int gray = 1;
  for (int i = 0; px && i < w * h; i++) gray &= px[3 * i] == px[3 * i + 1] && px[3 * i] == px[3 * i + 2];
  CHECK(gray, "a gray PNG expands to equal R, G, B");
  free(px);

  px = image_file_load_rgb(write_cmyk_jpeg(), &w, &h, err, sizeof err);
  CHECK(px && w == 16 && h == 8, "CMYK JPEG: %s", err);
  if (px) CHECK(px[0] >= 250 && px[1] <= 5 && px[2] <= 5, "Adobe CMYK (255,0,0,255) is red, got %d,%d,%d", px[0], px[1], px[2]);
  free(px);

  bad_picture("missing", "/nonexistent.png", "does not exist");
  bad_picture("text", write_text("x.png", "not a picture at all"), "neither a PNG nor a JPEG");
  bad_picture("empty", write_text("e.jpg", ""), "neither a PNG nor a JPEG");
  size_t n = 0;
  snprintf(p, sizeof p, "%s/rocket.jpg", pics);
  uint8_t *jpg = read_all(p, &n);
  CHECK(jpg && n > 10000, "reading rocket.jpg");
  if (jpg && n > 10000) {
    bad_picture("JPEG cut in half", write_file("half.jpg", jpg, n / 2), "Premature end of JPEG file");
    bad_picture("JPEG header only", write_file("head.jpg", jpg, 200), "not a readable JPEG");
    jpg[n / 3] ^= 0xff, jpg[n / 3 + 1] = 0xff, jpg[n / 3 + 2] = 0xd9;  /* an end marker inside the data */
    int w2, h2;
    uint8_t *q = image_file_load_rgb(write_file("flip.jpg", jpg, n), &w2, &h2, err, sizeof err);
    free(q);  /* decoded or refused: either way no crash (ASan watches) */
  }
  free(jpg);
  snprintf(p, sizeof p, "%s/astronaut.png", pics);
  uint8_t *png = read_all(p, &n);
  if (png && n > 10000) bad_picture("PNG cut short", write_file("cut.png", png, n / 2), "cut.png");
  free(png);
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: test_eval_inputs PICTURES_DIR\n");
    return 2;
  }
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  coco_files();
  truth_files();
  pictures(argv[1]);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  printf("%d failure(s)\n", failures);
  return failures != 0;
}
