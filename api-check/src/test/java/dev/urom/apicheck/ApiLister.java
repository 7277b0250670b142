// SPDX-License-Identifier: Apache-2.0
package dev.urom.apicheck;

import dev.urom.spi.Api;
import dev.urom.spi.Api.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Lists the public API of one module, read by reflection from the classes of its jar or classes
 * folder (and nothing else of the class path), as sorted text: one block per public or protected
 * type (its status, modifiers, kind, generic name and supertypes, then its record components and
 * enum constants in declaration order, since their order is part of the API, and its public and
 * protected fields, constructors and methods, each group sorted by name), blocks sorted by binary name.
 *
 * <p>Each type line starts with its {@link Api} status ({@code [STABLE 0.1]}; a nested type without
 * its own has its enclosing type's); a member line starts with one only where the member's own
 * differs from its type's. Along the way it collects the problems that fail the check: a public
 * type without a status, a {@code since} that is not a version, and an element that exposes in its
 * signature a project type ({@code dev.urom.*}) that promises less than it does: an INTERNAL,
 * unannotated or non-public one under anything but INTERNAL, or a weaker one under a stronger
 * (STABLE, then MAINTAINED, then EXPERIMENTAL). DEPRECATED is exempt from that order, not from the
 * rest.
 *
 * <p>Classes are loaded without being initialised. Stateless; throws {@link UncheckedIOException}
 * when the root cannot be read and {@link IllegalStateException} naming a class that cannot be
 * loaded.
 */
final class ApiLister {
    /** The packages whose types the exposure rule looks at. */
    static final String PROJECT_PREFIX = "dev.urom.";

    private static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+(\\.\\d+)?");
    private static final String UNANNOTATED = "[no @Api]";
    private static final int TYPE_MODIFIERS =
            Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.ABSTRACT | Modifier.FINAL;
    private static final int FIELD_MODIFIERS = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL;
    private static final int METHOD_MODIFIERS =
            Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL | Modifier.ABSTRACT;

    private ApiLister() {}

    /**
     * The API of the classes under {@code root} (a jar, or a classes folder; one that does not exist
     * holds no classes), loaded through {@code loader}, which must see them.
     */
    static ApiListing list(Path root, ClassLoader loader) {
        Map<String, Class<?>> types = new TreeMap<>();
        Set<String> packages = new TreeSet<>();
        for (String name : classNames(root)) {
            Class<?> c = load(name, loader);
            if (c.getEnclosingClass() == null && Modifier.isPublic(c.getModifiers())) {
                packages.add(c.getPackageName());
                addWithMembers(c, types);
            }
        }
        List<String> lines = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String p : packages) {
            Package pkg = loader.getDefinedPackage(p);
            Api api = pkg == null ? null : pkg.getAnnotation(Api.class);
            if (api != null) {
                checkSince(api, "package " + p, problems);
                lines.add(tag(api) + " package " + p);
                lines.add("");
            }
        }
        for (Class<?> c : types.values()) {
            lines.addAll(block(c, problems));
            lines.add("");
        }
        if (!lines.isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        return new ApiListing(lines, problems);
    }

    /** The binary names of the classes under {@code root}, module-info and package-info left out. */
    static List<String> classNames(Path root) {
        if (!Files.exists(root)) {
            return List.of();
        }
        try {
            Stream<String> entries;
            if (Files.isDirectory(root)) {
                try (Stream<Path> walk = Files.walk(root)) {
                    entries = walk
                            .filter(Files::isRegularFile)
                            .map(f -> root.relativize(f).toString().replace('\\', '/'))
                            .toList()
                            .stream();
                }
            } else {
                try (JarFile jar = new JarFile(root.toFile())) {
                    entries = jar.stream().map(JarEntry::getName).toList().stream();
                }
            }
            return entries.filter(e -> e.endsWith(".class"))
                    .filter(e -> !e.endsWith("module-info.class") && !e.endsWith("package-info.class"))
                    .filter(e -> !e.startsWith("META-INF/"))
                    .map(e -> e.substring(0, e.length() - ".class".length()).replace('/', '.'))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes of " + root + ": " + e.getMessage(), e);
        }
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("cannot load " + name + " to list its API: " + e, e);
        }
    }

    private static void addWithMembers(Class<?> c, Map<String, Class<?>> types) {
        types.put(c.getName(), c);
        for (Class<?> nested : c.getDeclaredClasses()) {
            if (isExported(nested.getModifiers())) {
                addWithMembers(nested, types);
            }
        }
    }

    private static boolean isExported(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** Whether code outside the package can name {@code c}: it and every type around it exported. */
    static boolean isVisible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (!isExported(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    /** The type's own {@link Api}, or that of the nearest type around it that has one. */
    static Optional<Api> statusOf(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            Api api = k.getAnnotation(Api.class);
            if (api != null) {
                return Optional.of(api);
            }
        }
        return Optional.empty();
    }

    private static String tag(Api api) {
        return "[" + api.status() + " " + api.since() + "]";
    }

    private static void checkSince(Api api, String where, List<String> problems) {
        if (!VERSION.matcher(api.since()).matches()) {
            problems.add(
                    where + ": @Api since \"" + api.since() + "\" is not a version (MAJOR.MINOR or MAJOR.MINOR.PATCH)");
        }
    }

    private static List<String> block(Class<?> c, List<String> problems) {
        Optional<Api> status = statusOf(c);
        if (status.isEmpty()) {
            problems.add(c.getName() + " is public and has no @Api status (annotate it with @dev.urom.spi.Api)");
        }
        Api own = c.getAnnotation(Api.class);
        if (own != null) {
            checkSince(own, c.getName(), problems);
        }
        Status typeStatus = status.map(Api::status).orElse(null);
        List<String> lines = new ArrayList<>();
        lines.add(status.map(ApiLister::tag).orElse(UNANNOTATED) + " " + header(c));
        Exposure exposure = new Exposure(problems);
        exposure.check(c.getName(), typeStatus, c.getGenericSuperclass());
        for (Type t : c.getGenericInterfaces()) {
            exposure.check(c.getName(), typeStatus, t);
        }
        exposure.checkBounds(c.getName(), typeStatus, c.getTypeParameters());

        if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                lines.add("    component " + rc.getGenericType().getTypeName() + " " + rc.getName());
                exposure.check(c.getName() + "." + rc.getName(), typeStatus, rc.getGenericType());
            }
        }
        // getDeclaredFields gives the class file's order, which is the declaration order: an enum's
        // constants keep their ordinals' order, and are read without initialising the enum.
        for (Field f : c.getDeclaredFields()) {
            if (f.isEnumConstant()) {
                lines.add("    " + memberTag(f, status) + "constant " + f.getName());
            }
        }
        List<Line> fields = new ArrayList<>();
        for (Field f : c.getDeclaredFields()) {
            if (isExported(f.getModifiers()) && !f.isSynthetic() && !f.isEnumConstant()) {
                String text = modifiers(f.getModifiers() & FIELD_MODIFIERS)
                        + f.getGenericType().getTypeName() + " " + f.getName();
                fields.add(new Line(f.getName(), "    " + memberTag(f, status) + text));
                exposure.check(c.getName() + ": " + text, effective(f, typeStatus, problems, c), f.getGenericType());
            }
        }
        List<Line> constructors = new ArrayList<>();
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (isExported(k.getModifiers()) && !k.isSynthetic()) {
                String text = modifiers(k.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED))
                        + typeParameters(k.getTypeParameters(), true)
                        + c.getSimpleName()
                        + parametersAndThrows(k);
                constructors.add(new Line("", "    " + memberTag(k, status) + text));
                exposure.checkExecutable(c.getName() + ": " + text, effective(k, typeStatus, problems, c), k);
            }
        }
        List<Line> methods = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            if (isExported(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
                String text = modifiers(m.getModifiers() & METHOD_MODIFIERS) + (m.isDefault() ? "default " : "")
                        + typeParameters(m.getTypeParameters(), true)
                        + m.getGenericReturnType().getTypeName() + " " + m.getName()
                        + parametersAndThrows(m);
                methods.add(new Line(m.getName(), "    " + memberTag(m, status) + text));
                Status effective = effective(m, typeStatus, problems, c);
                exposure.checkExecutable(c.getName() + ": " + text, effective, m);
                exposure.check(c.getName() + ": " + text, effective, m.getGenericReturnType());
            }
        }
        Stream.of(fields, constructors, methods)
                .forEach(group ->
                        group.stream().sorted(Line.ORDER).map(Line::text).forEach(lines::add));
        return lines;
    }

    /** A member's line, sorted by the member's name, then by its text (overloads by parameters). */
    private record Line(String name, String text) {
        static final Comparator<Line> ORDER = Comparator.comparing(Line::name).thenComparing(Line::text);
    }

    private static <M extends Member & AnnotatedElement> Status effective(
            M member, Status typeStatus, List<String> problems, Class<?> owner) {
        Api own = member.getAnnotation(Api.class);
        if (own == null) {
            return typeStatus;
        }
        checkSince(own, owner.getName() + "." + member.getName(), problems);
        return own.status();
    }

    /** The member's own status, shown only where it differs from its type's. */
    private static String memberTag(AnnotatedElement member, Optional<Api> typeStatus) {
        Api own = member.getAnnotation(Api.class);
        if (own == null
                || typeStatus
                        .filter(t -> t.status() == own.status() && t.since().equals(own.since()))
                        .isPresent()) {
            return "";
        }
        return tag(own) + " ";
    }

    private static String header(Class<?> c) {
        int m = c.getModifiers() & TYPE_MODIFIERS;
        String kind;
        if (c.isAnnotation()) {
            kind = "@interface";
            m &= ~(Modifier.ABSTRACT | Modifier.STATIC);
        } else if (c.isInterface()) {
            kind = "interface";
            m &= ~(Modifier.ABSTRACT | Modifier.STATIC);
        } else if (c.isEnum()) {
            kind = "enum";
            m &= ~(Modifier.ABSTRACT | Modifier.STATIC | Modifier.FINAL);
        } else if (c.isRecord()) {
            kind = "record";
            m &= ~(Modifier.STATIC | Modifier.FINAL);
        } else {
            kind = "class";
        }
        StringBuilder b = new StringBuilder(modifiers(m));
        if (c.isSealed()) {
            b.append("sealed ");
        } else if (!Modifier.isFinal(c.getModifiers()) && !c.isEnum() && extendsSealed(c)) {
            b.append("non-sealed ");
        }
        b.append(kind).append(' ').append(c.getName()).append(typeParameters(c.getTypeParameters(), false));
        Type superclass = c.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && !c.isEnum() && !c.isRecord()) {
            b.append(" extends ").append(superclass.getTypeName());
        }
        List<String> interfaces = Arrays.stream(c.getGenericInterfaces())
                .filter(t -> !(c.isAnnotation() && t == java.lang.annotation.Annotation.class))
                .map(Type::getTypeName)
                .sorted()
                .toList();
        if (!interfaces.isEmpty()) {
            b.append(c.isInterface() ? " extends " : " implements ").append(String.join(", ", interfaces));
        }
        if (c.isSealed()) {
            b.append(" permits ")
                    .append(Arrays.stream(c.getPermittedSubclasses())
                            .map(Class::getName)
                            .sorted()
                            .collect(Collectors.joining(", ")));
        }
        return b.toString();
    }

    private static boolean extendsSealed(Class<?> c) {
        return (c.getSuperclass() != null && c.getSuperclass().isSealed())
                || Arrays.stream(c.getInterfaces()).anyMatch(Class::isSealed);
    }

    private static String modifiers(int m) {
        String s = Modifier.toString(m);
        return s.isEmpty() ? "" : s + " ";
    }

    private static String typeParameters(TypeVariable<?>[] variables, boolean trailingSpace) {
        if (variables.length == 0) {
            return "";
        }
        String joined = Arrays.stream(variables)
                .map(v -> {
                    List<String> bounds = Arrays.stream(v.getBounds())
                            .filter(t -> t != Object.class)
                            .map(Type::getTypeName)
                            .toList();
                    return bounds.isEmpty() ? v.getName() : v.getName() + " extends " + String.join(" & ", bounds);
                })
                .collect(Collectors.joining(", ", "<", ">"));
        return trailingSpace ? joined + " " : joined;
    }

    private static String parametersAndThrows(Executable e) {
        Type[] parameters = e.getGenericParameterTypes();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < parameters.length; i++) {
            String name = parameters[i].getTypeName();
            if (e.isVarArgs() && i == parameters.length - 1 && name.endsWith("[]")) {
                name = name.substring(0, name.length() - 2) + "...";
            }
            names.add(name);
        }
        String text = "(" + String.join(", ", names) + ")";
        List<String> thrown = Arrays.stream(e.getGenericExceptionTypes())
                .map(Type::getTypeName)
                .sorted()
                .toList();
        return thrown.isEmpty() ? text : text + " throws " + String.join(", ", thrown);
    }

    /** Collects the exposure problems of one type's elements. */
    private record Exposure(List<String> problems) {
        void checkExecutable(String element, Status status, Executable e) {
            for (Type t : e.getGenericParameterTypes()) {
                check(element, status, t);
            }
            for (Type t : e.getGenericExceptionTypes()) {
                check(element, status, t);
            }
            checkBounds(element, status, e.getTypeParameters());
        }

        void checkBounds(String element, Status status, TypeVariable<?>[] variables) {
            for (TypeVariable<?> v : variables) {
                for (Type bound : v.getBounds()) {
                    check(element, status, bound);
                }
            }
        }

        void check(String element, Status status, Type type) {
            if (type == null || status == null || status == Status.INTERNAL) {
                return;
            }
            Set<Class<?>> referenced = new LinkedHashSet<>();
            collect(type, referenced);
            for (Class<?> r : referenced.stream()
                    .sorted(Comparator.comparing(Class::getName))
                    .toList()) {
                if (!r.getName().startsWith(PROJECT_PREFIX)) {
                    continue;
                }
                Optional<Status> exposed = statusOf(r).map(Api::status);
                if (!isVisible(r)) {
                    problems.add(element + " (" + status + ") exposes " + r.getName() + ", which is not public");
                } else if (exposed.isEmpty()) {
                    problems.add(element + " (" + status + ") exposes " + r.getName() + ", which has no @Api status");
                } else if (exposed.get() == Status.INTERNAL) {
                    problems.add(element + " (" + status + ") exposes " + r.getName() + ", which is INTERNAL");
                } else if (status != Status.DEPRECATED
                        && exposed.get() != Status.DEPRECATED
                        && rank(exposed.get()) < rank(status)) {
                    problems.add(
                            element + " (" + status + ") exposes " + r.getName() + ", which is only " + exposed.get());
                }
            }
        }

        private static int rank(Status s) {
            return switch (s) {
                case STABLE -> 3;
                case MAINTAINED -> 2;
                case EXPERIMENTAL, DEPRECATED -> 1;
                case INTERNAL -> 0;
            };
        }

        /** The classes a type names; a type variable's bounds are checked where it is declared. */
        private static void collect(Type type, Set<Class<?>> out) {
            if (type instanceof Class<?> c) {
                while (c.isArray()) {
                    c = c.getComponentType();
                }
                if (!c.isPrimitive()) {
                    out.add(c);
                }
            } else if (type instanceof ParameterizedType p) {
                collect(p.getRawType(), out);
                if (p.getOwnerType() != null) {
                    collect(p.getOwnerType(), out);
                }
                for (Type argument : p.getActualTypeArguments()) {
                    collect(argument, out);
                }
            } else if (type instanceof GenericArrayType g) {
                collect(g.getGenericComponentType(), out);
            } else if (type instanceof WildcardType w) {
                for (Type t : w.getUpperBounds()) {
                    collect(t, out);
                }
                for (Type t : w.getLowerBounds()) {
                    collect(t, out);
                }
            }
        }
    }
}
