#version 330 core
// The trails, captions and legend, painted by QPainter into an image (premultiplied alpha).
in vec2 v_uv;
uniform sampler2D u_overlay;
out vec4 frag_colour;
void main() {
    vec4 texel = texture(u_overlay, v_uv);
    // Image bytes are BGRA (QImage ARGB32 on little-endian), uploaded as RGBA: swap back.
    frag_colour = vec4(texel.b, texel.g, texel.r, texel.a);
}
