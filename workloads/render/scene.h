/* scene: the built-in program, scene.vm (written by scripts/gen-render-scene), embedded at build
 * time so that sbx-render needs no file. */
#pragma once

#include <stddef.h>

extern const char render_scene_vm[];
extern const size_t render_scene_vm_len;
