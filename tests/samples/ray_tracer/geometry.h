// Vectors, rays and the scene's objects of the ray tracer, usable on host and device: objects
// derive from Hittable and are hit through virtual calls, as in "Ray Tracing in One Weekend"
// ports to CUDA. The device builds its scene with new inside a kernel (virtual functions need
// objects constructed where they are called); the host builds the same scene for its reference.
#pragma once
#include <cmath>

struct Vec3 {
    float x, y, z;
    __host__ __device__ Vec3() : x(0), y(0), z(0) {}
    __host__ __device__ Vec3(float a, float b, float c) : x(a), y(b), z(c) {}
    __host__ __device__ Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    __host__ __device__ Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    __host__ __device__ Vec3 operator*(float s) const { return {x * s, y * s, z * s}; }
    __host__ __device__ Vec3 operator*(const Vec3 &o) const { return {x * o.x, y * o.y, z * o.z}; }
    __host__ __device__ float dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    __host__ __device__ float length() const { return sqrtf(dot(*this)); }
    __host__ __device__ Vec3 unit() const { return *this * (1.0f / length()); }
};

struct Ray {
    Vec3 origin, dir;
    __host__ __device__ Vec3 at(float t) const { return origin + dir * t; }
};

struct Hit {
    float t;
    Vec3 point, normal;
    int material;
};

class Hittable {
public:
    __host__ __device__ virtual ~Hittable() {}
    __host__ __device__ virtual bool hit(const Ray &r, float tMin, float tMax, Hit &h) const = 0;
};

class Sphere : public Hittable {
public:
    __host__ __device__ Sphere(Vec3 c, float r, int m) : center(c), radius(r), material(m) {}
    __host__ __device__ bool hit(const Ray &r, float tMin, float tMax, Hit &h) const override {
        Vec3 oc = r.origin - center;
        float a = r.dir.dot(r.dir), b = oc.dot(r.dir), c = oc.dot(oc) - radius * radius;
        float disc = b * b - a * c;
        if (disc < 0) return false;
        float sq = sqrtf(disc);
        for (float t : {(-b - sq) / a, (-b + sq) / a})
            if (t > tMin && t < tMax) {
                h.t = t;
                h.point = r.at(t);
                h.normal = (h.point - center) * (1.0f / radius);
                h.material = material;
                return true;
            }
        return false;
    }
    Vec3 center;
    float radius;
    int material;
};

class Plane : public Hittable {
public:
    __host__ __device__ Plane(float y, int m) : height(y), material(m) {}
    __host__ __device__ bool hit(const Ray &r, float tMin, float tMax, Hit &h) const override {
        if (fabsf(r.dir.y) < 1e-6f) return false;
        float t = (height - r.origin.y) / r.dir.y;
        if (t <= tMin || t >= tMax) return false;
        h.t = t;
        h.point = r.at(t);
        h.normal = Vec3(0, 1, 0);
        h.material = material;
        return true;
    }
    float height;
    int material;
};

class Scene : public Hittable {
public:
    __host__ __device__ Scene(Hittable **l, int n) : list(l), count(n) {}
    __host__ __device__ bool hit(const Ray &r, float tMin, float tMax, Hit &h) const override {
        bool any = false;
        float closest = tMax;
        for (int i = 0; i < count; ++i) {
            Hit tmp;
            if (list[i]->hit(r, tMin, closest, tmp)) {
                any = true;
                closest = tmp.t;
                h = tmp;
            }
        }
        return any;
    }
    Hittable **list;
    int count;
};

constexpr int kObjects = 10;

// The scene: a ground plane and nine spheres on a ring; objects are allocated with new.
__host__ __device__ inline Scene *buildScene(Hittable **list) {
    list[0] = new Plane(-1.0f, 0);
    for (int i = 0; i < kObjects - 1; ++i) {
        float a = 6.2831853f * i / (kObjects - 1);
        list[i + 1] = new Sphere(Vec3(2.2f * cosf(a), -0.5f + 0.15f * i, -4.0f + 2.2f * sinf(a)),
                                 0.5f + 0.05f * i, 1 + i % 3);
    }
    return new Scene(list, kObjects);
}

__host__ __device__ inline void destroyScene(Scene *scene) {
    for (int i = 0; i < scene->count; ++i) delete scene->list[i];
    delete scene;
}

// Shades one pixel: up to four bounces off mirror-like materials, a checkerboard floor and a
// sky gradient, with a shadow ray toward one light. Iterative (no device recursion).
__host__ __device__ inline Vec3 trace(const Hittable *world, Ray r) {
    const Vec3 albedo[4] = {Vec3(0.8f, 0.8f, 0.8f), Vec3(0.9f, 0.3f, 0.3f),
                            Vec3(0.3f, 0.9f, 0.4f), Vec3(0.3f, 0.4f, 0.95f)};
    const float reflectivity[4] = {0.1f, 0.5f, 0.2f, 0.7f};
    const Vec3 light = Vec3(-3.0f, 5.0f, 1.0f);
    Vec3 color(0, 0, 0), weight(1, 1, 1);
    for (int bounce = 0; bounce < 4; ++bounce) {
        Hit h;
        if (!world->hit(r, 1e-3f, 1e30f, h)) {
            float t = 0.5f * (r.dir.unit().y + 1.0f);
            color = color + weight * (Vec3(1, 1, 1) * (1 - t) + Vec3(0.5f, 0.7f, 1.0f) * t);
            break;
        }
        Vec3 base = albedo[h.material];
        if (h.material == 0 && ((int(floorf(h.point.x)) + int(floorf(h.point.z))) & 1))
            base = base * 0.3f;
        Vec3 toLight = (light - h.point).unit();
        Hit blocker;
        bool shadow = world->hit(Ray{h.point, toLight}, 1e-3f, 1e30f, blocker);
        float diffuse = shadow ? 0.1f : fmaxf(0.1f, h.normal.dot(toLight));
        float k = reflectivity[h.material];
        color = color + weight * base * (diffuse * (1 - k));
        weight = weight * base * k;
        Vec3 d = r.dir - h.normal * (2 * r.dir.dot(h.normal));
        r = Ray{h.point, d.unit()};
    }
    return color;
}

__host__ __device__ inline Ray cameraRay(int x, int y, int w, int h, float sx, float sy) {
    float u = (x + sx) / w, v = (y + sy) / h, aspect = float(w) / h;
    Vec3 dir(aspect * (2 * u - 1), 1 - 2 * v, -1.5f);
    return Ray{Vec3(0, 0.3f, 1.5f), dir.unit()};
}
