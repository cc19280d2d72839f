package dev.tandem.config;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AnnotationTypeFilter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settings' names where the project writes them. Spring ignores an environment variable that
 * names no setting, so a misspelt one in a file the project ships (TANDEM_CACHE_L1_TTL_JITER) is a
 * setting silently left at its default: every TANDEM_* variable that the Kubernetes manifests and
 * docker-compose.yml give the services must bind a Tandem setting, and every variable README.md
 * names beside a setting must bind that setting. Every setting is in README.md, with the default a
 * service starts with where a table gives one. Whether a name
 * binds is Spring's own relaxed binding of a system environment variable, asked of each setting
 * there is: a component of a {@code @ConfigurationProperties} record under dev.tandem, or a key of
 * tandem-domain.yml / tandem-service.yml (which the YAML reads itself, as {@code tandem.db.replica.port}).
 */
class DocumentedSettingsTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** {@code NAME=value} in tandem.env, commented out or not (a commented one is there to be turned on). */
    private static final Pattern ENV_FILE_LINE = Pattern.compile("(?m)^#?\\s*(TANDEM_[A-Z0-9_]+)=");
    /** A key of a YAML mapping (docker-compose's environment, a Secret's stringData) or an env entry's name. */
    private static final Pattern YAML_KEY = Pattern.compile("(?m)^\\s*(?:-\\s+name:\\s+)?(TANDEM_[A-Z0-9_]+)\\s*(?::|$)");
    /** A setting and its variable beside it: {@code `tandem.x.y` (`TANDEM_X_Y`)}, or in two cells of a table. */
    private static final Pattern README_SETTING = Pattern.compile(
            "`(tandem\\.[a-z0-9.-]+)`\\s*(?:\\(|\\|)\\s*`(TANDEM_[A-Z0-9_]+)`");

    /** What the services import (spring.config.import): the settings' defaults. */
    private static final List<PropertySource<?>> SERVICE_YAML = serviceYaml();
    /** Each {@code @ConfigurationProperties} record under dev.tandem, by its prefix. */
    private static final Map<String, Class<?>> RECORDS = records();
    private static final Set<String> SETTINGS = settings();

    @Test
    void everyVariableTheDeploymentsGiveTheServicesBindsASetting() throws IOException {
        List<String> unbound = new ArrayList<>();
        Path k8s = ROOT.resolve("deploy/k8s");
        for (String name : names(ENV_FILE_LINE, k8s.resolve("tandem.env"))) {
            check(name, "deploy/k8s/tandem.env", unbound);
        }
        try (Stream<Path> manifests = Files.walk(k8s)) {
            for (Path manifest : manifests.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                for (String name : names(YAML_KEY, manifest)) {
                    check(name, ROOT.relativize(manifest).toString(), unbound);
                }
            }
        }
        for (String name : names(YAML_KEY, ROOT.resolve("docker-compose.yml"))) {
            check(name, "docker-compose.yml", unbound);
        }
        assertThat(unbound).as("TANDEM_* variables that bind no setting").isEmpty();
    }

    @Test
    void everyVariableTheReadmeNamesBesideASettingBindsThatSetting() throws IOException {
        List<String> wrong = new ArrayList<>();
        int pairs = 0;
        Matcher pair = README_SETTING.matcher(Files.readString(ROOT.resolve("README.md")));
        while (pair.find()) {
            pairs++;
            String setting = pair.group(1);
            String variable = pair.group(2);
            if (!SETTINGS.contains(setting)) {
                wrong.add(setting + " is no setting");
            } else if (!binds(variable, setting)) {
                wrong.add(variable + " does not bind " + setting);
            }
        }
        assertThat(pairs).as("settings named with their variable in README.md").isGreaterThan(60);
        assertThat(wrong).isEmpty();
    }

    /**
     * Named in full ({@code `tandem.db.replica.host`}) or by its variable, or by its last part in a
     * row that names a sibling in full ({@code `tandem.db.replica.port`, `.name`}). Failed before
     * for tandem.db.replica.url, which no page named.
     */
    @Test
    void everySettingIsInTheReadme() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        List<String> missing = new ArrayList<>();
        for (String setting : SETTINGS) {
            String variable = setting.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
            int dot = setting.lastIndexOf('.');
            String sibling = "`" + setting.substring(0, dot + 1);
            String leaf = "`" + setting.substring(dot) + "`";
            if (lines.stream().noneMatch(line -> line.contains("`" + setting + "`") || line.contains(variable)
                    || (line.contains(sibling) && line.contains(leaf)))) {
                missing.add(setting);
            }
        }
        assertThat(missing).as("settings README.md does not name").isEmpty();
    }

    /**
     * The default a README settings table gives is the one a service starts with: the table's
     * "default" cell, converted as Spring converts the setting's value, equals the setting as bound
     * from tandem-domain.yml and tandem-service.yml alone. A cell that says more than a value ("unset:
     * 100, or ..."), or a row of several settings with as many values ("60s, 0.1, 10000, 2s"), is
     * compared value by value; prose is left alone.
     */
    @Test
    void everyDefaultTheReadmeGivesIsTheDefault() throws IOException {
        Binder defaults = new Binder(ConfigurationPropertySources.from(SERVICE_YAML),
                new PropertySourcesPlaceholdersResolver(SERVICE_YAML));
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        int defaultColumn = -1;
        for (String line : Files.readAllLines(ROOT.resolve("README.md"))) {
            if (!line.startsWith("|")) {
                defaultColumn = -1;
                continue;
            }
            List<String> cells = Arrays.stream(line.substring(1).split("\\|")).map(String::trim).toList();
            if (defaultColumn < 0) {
                defaultColumn = cells.indexOf("default"); // a table's header, or -1: no defaults here
                continue;
            }
            if (cells.size() <= defaultColumn || cells.get(defaultColumn).startsWith("---")) {
                continue;
            }
            List<String> settings = settingsOf(String.join(" | ", cells.subList(0, defaultColumn)));
            List<String> values = Arrays.stream(cells.get(defaultColumn).split(",")).map(v -> v.trim().replace("`", "")).toList();
            if (settings.isEmpty() || settings.size() != values.size()) {
                continue;
            }
            for (int i = 0; i < settings.size(); i++) {
                Object actual = defaultOf(defaults, settings.get(i));
                Object documented = documented(values.get(i), actual);
                if (documented != null) {
                    compared++;
                    if (!documented.equals(actual)) {
                        wrong.add(settings.get(i) + ": README " + values.get(i) + ", service " + actual);
                    }
                }
            }
        }
        assertThat(compared).as("defaults compared").isGreaterThan(50);
        assertThat(wrong).isEmpty();
    }

    /** {@code `tandem.cache.l1.ttl` (...), `.ttl-jitter` (...)}: the settings a table row names, in order. */
    private static List<String> settingsOf(String cells) {
        List<String> settings = new ArrayList<>();
        Matcher name = Pattern.compile("`(tandem\\.[a-z0-9.-]+)`|`\\.([a-z0-9-]+)`").matcher(cells);
        while (name.find()) {
            if (name.group(1) != null) {
                settings.add(name.group(1));
            } else if (!settings.isEmpty()) {
                String first = settings.get(0);
                settings.add(first.substring(0, first.lastIndexOf('.') + 1) + name.group(2));
            }
        }
        return settings;
    }

    /** The setting's value as its record holds it, bound from the services' YAML alone. */
    private static Object defaultOf(Binder defaults, String setting) {
        String prefix = RECORDS.keySet().stream().filter(p -> setting.startsWith(p + "."))
                .max(Comparator.comparingInt(String::length)).orElseThrow(() -> new AssertionError(setting + " has no record"));
        Object value = defaults.bindOrCreate(prefix, RECORDS.get(prefix));
        for (String part : setting.substring(prefix.length() + 1).split("\\.")) {
            RecordComponent component = Arrays.stream(value.getClass().getRecordComponents())
                    .filter(c -> DataObjectPropertyName.toDashedForm(c.getName()).equals(part)).findFirst()
                    .orElseThrow(() -> new AssertionError(setting + ": no component " + part));
            try {
                value = component.getAccessor().invoke(value);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return value;
    }

    /** The README's text as a value of the setting's type, or null when the text is prose or says "none". */
    private static Object documented(String text, Object actual) {
        if (actual == null || text.isEmpty() || text.contains(" ") || text.equals("blank") || text.equals("none")) {
            return null;
        }
        try {
            return ApplicationConversionService.getSharedInstance().convert(text, actual.getClass());
        } catch (ConversionException notAValue) {
            return null;
        }
    }

    private static void check(String name, String where, List<String> unbound) {
        if (SETTINGS.stream().noneMatch(setting -> binds(name, setting))) {
            unbound.add(where + ": " + name);
        }
    }

    /** Whether Spring binds the environment variable {@code name} to {@code setting}. */
    private static boolean binds(String name, String setting) {
        ConfigurationPropertySource environment = ConfigurationPropertySource.from(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of(name, "set")));
        return environment.getConfigurationProperty(ConfigurationPropertyName.of(setting)) != null;
    }

    private static Set<String> names(Pattern pattern, Path file) throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher matcher = pattern.matcher(Files.readString(file));
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    private static List<PropertySource<?>> serviceYaml() {
        List<PropertySource<?>> sources = new ArrayList<>();
        for (String yaml : new String[]{"tandem-domain.yml", "tandem-service.yml"}) {
            try {
                sources.addAll(new YamlPropertySourceLoader().load(yaml, new ClassPathResource(yaml)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sources;
    }

    private static Map<String, Class<?>> records() {
        Map<String, Class<?>> records = new TreeMap<>();
        var scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        for (BeanDefinition candidate : scanner.findCandidateComponents("dev.tandem")) {
            try {
                Class<?> type = Class.forName(candidate.getBeanClassName());
                ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
                records.put(annotation.prefix().isEmpty() ? annotation.value() : annotation.prefix(), type);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return records;
    }

    /** Every Tandem setting, by its canonical name. */
    private static Set<String> settings() {
        Set<String> settings = new TreeSet<>();
        RECORDS.forEach((prefix, type) -> addComponents(prefix, type, settings));
        for (PropertySource<?> yaml : SERVICE_YAML) {
            for (String name : ((EnumerablePropertySource<?>) yaml).getPropertyNames()) {
                if (name.startsWith("tandem.")) {
                    settings.add(name.replaceAll("\\[\\d+]$", "")); // an empty list's key
                }
            }
        }
        assertThat(settings).as("settings found").contains("tandem.cache.l1.ttl-jitter", "tandem.db.replica.port",
                "tandem.watch.max-watchers-per-client");
        return settings;
    }

    private static void addComponents(String prefix, Class<?> record, Set<String> settings) {
        for (RecordComponent component : record.getRecordComponents()) {
            String name = prefix + "." + DataObjectPropertyName.toDashedForm(component.getName());
            if (component.getType().isRecord() && component.getType().getPackageName().startsWith("dev.tandem")) {
                addComponents(name, component.getType(), settings);
            } else {
                settings.add(name);
            }
        }
    }
}
