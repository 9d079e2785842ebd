#version 330 core
// Centroid markers: the cluster colour inside a white and a black ring, with a
// white cross, so a centroid never looks like a data point.
in vec4 v_colour;
out vec4 frag_colour;
void main() {
    vec2 offset = gl_PointCoord * 2.0 - 1.0;
    float r = length(offset);
    if (r > 1.0) discard;
    if (r > 0.78) frag_colour = vec4(0.0, 0.0, 0.0, 1.0);
    else if (r > 0.62) frag_colour = vec4(1.0);
    else if (min(abs(offset.x), abs(offset.y)) < 0.09) frag_colour = vec4(1.0);
    else frag_colour = v_colour;
}
