#version 330 core
// Voronoi cells of the (projected) centroids: nearest centroid per pixel,
// tinted with its cluster colour, with dark cell borders.
in vec2 v_world;
uniform sampler2D u_centroids;  // k × 1, RG = world position
uniform sampler2D u_palette;    // k × 1, RGBA8 cluster colours
uniform int u_count;
uniform float u_world_per_pixel;
uniform float u_alpha;           // tint strength over the background
uniform vec3 u_background;
out vec4 frag_colour;
void main() {
    float best = 1e38;
    float second = 1e38;
    int best_index = 0;
    int second_index = 0;
    for (int i = 0; i < u_count; ++i) {
        vec2 delta = v_world - texelFetch(u_centroids, ivec2(i, 0), 0).rg;
        float d2 = dot(delta, delta);
        if (d2 < best) {
            second = best;
            second_index = best_index;
            best = d2;
            best_index = i;
        } else if (d2 < second) {
            second = d2;
            second_index = i;
        }
    }
    // Distance to the bisector of the two nearest centroids, exactly:
    // (|x-b|² - |x-a|²) / (2|a-b|). (The difference of the distances themselves
    // shrinks with |a-b| and drew wedges, not lines, around close centroids.)
    vec2 a = texelFetch(u_centroids, ivec2(best_index, 0), 0).rg;
    vec2 b = texelFetch(u_centroids, ivec2(second_index, 0), 0).rg;
    float separation = length(a - b);
    float to_border = separation > 0.0 ? (second - best) / (2.0 * separation) : 1e38;
    // Opaque output (mixed here, not blended): the widget's framebuffer alpha stays 1.
    vec3 colour = texelFetch(u_palette, ivec2(best_index, 0), 0).rgb;
    if (u_count > 1 && to_border < u_world_per_pixel)
        frag_colour = vec4(mix(u_background, vec3(0.25), 0.7), 1.0);
    else
        frag_colour = vec4(mix(u_background, colour, u_alpha), 1.0);
}
